// Is the Temporal server there? Asked by every command before it connects. One gRPC round trip with a fixed 3 s
// deadline said "down" for a healthy server whenever the machine was busy: 100 `start`s at once on 2 cores, 78 of
// them exited 2. So: nothing listening on the port is "down" at once (the embedded server can start); something
// listening gets round trips with growing deadlines until PROBE_BUDGET_MS is spent. A server that answers with a
// refusal (UNAUTHENTICATED, PERMISSION_DENIED, UNIMPLEMENTED: a wrong API key or TLS setting, another gRPC service)
// is there: the command goes on, and its own first call reports that refusal, instead of 30 s and "does not answer".
import net from 'node:net';
import type { Connection } from '@temporalio/client';
import type { ReachOptions } from '../devserver/dev-server.js';

/** The first round trip's deadline; each further one doubles it, within the budget. */
export const PROBE_ATTEMPT_MS = 3_000;
/** How long a server that accepts connections may take to answer before it is called down. */
export const PROBE_BUDGET_MS = 30_000;

export interface ProbeOptions extends ReachOptions {
  attemptMs?: number;
  budgetMs?: number;
}

/** True once the server answers a GetSystemInfo; false at once when nothing accepts a TCP connection at `address`,
 * or after `budgetMs` of attempts when something does but never answers as a Temporal server. */
export async function probeServer(address: string, options: ProbeOptions = {}): Promise<boolean> {
  const { attemptMs = PROBE_ATTEMPT_MS, budgetMs = PROBE_BUDGET_MS, ...reach } = options;
  const deadline = Date.now() + budgetMs;
  let timeout = attemptMs;
  for (;;) {
    const left = () => Math.max(1, Math.min(timeout, deadline - Date.now()));
    // Over TLS the first bytes are the handshake's: only whether the port is open is asked there.
    const listener = await whatListens(address, left(), Boolean(reach.tls));
    // Nothing there, or a program that is not a gRPC server (it answered, but not in HTTP/2): down at once.
    if (listener === 'nothing' || listener === 'not-grpc') return false;
    if (await answers(address, left(), reach)) return true;
    if (deadline - Date.now() <= 0) return false;
    timeout *= 2;
    await new Promise((resolve) => setTimeout(resolve, Math.min(200, Math.max(0, deadline - Date.now()))));
  }
}

/** gRPC statuses that only a live server sends: PERMISSION_DENIED, UNIMPLEMENTED, UNAUTHENTICATED. */
const ANSWERED_WITH_A_REFUSAL = new Set([7, 12, 16]);

/** One GetSystemInfo round trip with a deadline, on a connection of its own: gRPC would otherwise hand the next
 * attempt the same stuck connection (its subchannels are shared by every channel to an address). */
async function answers(address: string, timeoutMs: number, reach: ReachOptions): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    const { Connection } = await import('@temporalio/client');
    connection = await Connection.connect({
      ...reach,
      address,
      connectTimeout: timeoutMs,
      channelArgs: { 'grpc.use_local_subchannel_pool': 1 },
    });
    const c = connection;
    await c.withDeadline(Date.now() + timeoutMs, () => c.workflowService.getSystemInfo({}));
    return true;
  } catch (err) {
    return ANSWERED_WITH_A_REFUSAL.has((err as { code?: number }).code ?? -1);
  } finally {
    await connection?.close().catch(() => {});
  }
}

// The client's HTTP/2 connection preface and an empty SETTINGS frame: an HTTP/2 server answers with its SETTINGS.
const HTTP2_PREFACE = Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]);
const SETTINGS_FRAME = 4;

/** What accepts a TCP connection at `address` (host:port, [v6]:port) within `timeoutMs`: `nothing` (refused, or no
 * answer to the connection), `grpc` (an HTTP/2 server answered the preface; or, `openOnly`, the port is open), `not-grpc`
 * (it answered something else, or closed), `silent` (accepted, but no answer yet: a busy server). */
export function whatListens(address: string, timeoutMs: number, openOnly = false): Promise<'nothing' | 'grpc' | 'not-grpc' | 'silent'> {
  const { host, port } = splitAddress(address);
  return new Promise((resolve) => {
    let connected = false;
    const socket = net.connect({ host, port });
    const done = (what: 'nothing' | 'grpc' | 'not-grpc' | 'silent') => {
      socket.destroy();
      resolve(what);
    };
    socket.setTimeout(timeoutMs, () => done(connected ? 'silent' : 'nothing'));
    socket.once('error', () => done(connected ? 'not-grpc' : 'nothing'));
    socket.once('connect', () => {
      connected = true;
      if (openOnly) return done('grpc');
      socket.write(HTTP2_PREFACE);
    });
    let head = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.length >= 9) done(head[3] === SETTINGS_FRAME ? 'grpc' : 'not-grpc');
    });
    socket.once('end', () => done('not-grpc'));
  });
}

function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  const host = at > 0 ? address.slice(0, at).replace(/^\[(.*)\]$/, '$1') : address;
  const port = at > 0 ? Number(address.slice(at + 1)) : 7233;
  return { host: host || '127.0.0.1', port: Number.isInteger(port) && port > 0 ? port : 7233 };
}
