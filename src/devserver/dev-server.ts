// Runs `temporal server start-dev` as a child process. We spawn it ourselves (not through @temporalio/testing)
// so the startup timeout is ours (the SDK allows 5 s, too short for a cold SQLite start on a slow CI box),
// the custom search attributes are registered at launch, and the Web UI can be turned on.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { Connection, type ConnectionOptions } from '@temporalio/client';
import { REGISTERED_SEARCH_ATTRIBUTES } from '../core/search-attributes.js';
import { findTemporalCli } from './find-temporal.js';
import { findFreePort, isPortFree, portClash, PortClashError, retryOnPortClash, type PortChooser } from './ports.js';

export { findFreePort } from './ports.js';

export interface DevServerOptions {
  cliPath?: string;
  /** gRPC port; default: a free port. */
  port?: number;
  /** Web UI port; default: a free port; false → --headless. */
  uiPort?: number | false;
  /** SQLite file (→ --db-filename); its parent directory is created. Default: in-memory. */
  dbFile?: string;
  namespace?: string;
  ip?: string;
  extraArgs?: string[];
  log?: (m: string) => void;
  logLevel?: string;
  /** How long to wait for the server to answer GetSystemInfo. Default 60 s. */
  startTimeoutMs?: number;
  /** `--dynamic-config-value KEY=VALUE` settings. Default EMBEDDED_SERVER_DYNAMIC_CONFIG; [] for the CLI's own
   * defaults. */
  dynamicConfig?: readonly string[];
  /** Picks the ports not given (gRPC, UI, HTTP API, metrics). Default findFreePort; a seam for tests. */
  choosePort?: PortChooser;
}

export interface DevServer {
  /** host:port for Connection / NativeConnection. */
  address: string;
  port: number;
  uiUrl: string | null;
  /** Port of the server's HTTP API; null when extraArgs chose it. */
  httpPort: number | null;
  /** Port of the server's Prometheus metrics (`http://host:port/metrics`); null when extraArgs chose it. */
  metricsPort: number | null;
  namespace: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** The embedded server's dynamic config, for per-turn latency (docs/operations.md, "Per-turn latency: server
 * settings", with the figures of BENCHMARKS.md (e)):
 * - `history.transferProcessorMaxPollRPS`: the history shard's transfer-queue reader (which hands new workflow and
 *   activity tasks to matching) loads at most 20 times a second per shard; the dev server has one shard, so a fast
 *   run's tasks queue behind that limit;
 * - `system.enableActivityEagerExecution`: the worker that completes a workflow task gets the activities it
 *   schedules on its own task queue in the reply (model and tool calls), with no dispatch at all. */
export const EMBEDDED_SERVER_DYNAMIC_CONFIG: readonly string[] = Object.freeze([
  'system.enableActivityEagerExecution=true',
  'history.transferProcessorMaxPollRPS=1000',
]);

/** `--search-attribute Name=Type` for each attribute: the CLI spells the SDK's types in PascalCase (KEYWORD_LIST:
 * KeywordList). */
export function searchAttributeArgs(): string[] {
  const cliType = (type: string) => type.toLowerCase().replace(/(?:^|_)([a-z])/g, (_, c: string) => c.toUpperCase());
  return REGISTERED_SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=${cliType(k.type)}`]);
}

/** How to reach a server that needs more than an address (TLS, an API key, gRPC metadata: Temporal Cloud). */
export type ReachOptions = Pick<ConnectionOptions, 'tls' | 'apiKey' | 'metadata'>;

/** A real gRPC GetSystemInfo round trip with a deadline: an open TCP port alone does not mean the server is up. */
export async function isServerReachable(address: string, timeoutMs = 1500, options: ReachOptions = {}): Promise<boolean> {
  let conn: Connection | undefined;
  try {
    conn = await Connection.connect({ ...options, address, connectTimeout: timeoutMs });
    const c = conn;
    await c.withDeadline(Date.now() + timeoutMs, () => c.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  } finally {
    await conn?.close().catch(() => {});
  }
}

function tcpOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ host, port });
    const done = (ok: boolean) => (sock.destroy(), resolve(ok));
    sock.setTimeout(500, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

// Children still running when this process exits are killed, so a crashed test run leaves no orphan servers.
const live = new Set<ChildProcess>();
let hooksInstalled = false;
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', () => live.forEach((c) => c.kill('SIGKILL')));
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      // Another handler owns this signal (the CLI stops the server gracefully, then exits; the exit hook
      // above catches what is left). Alone, restore Node's default: kill the children and die by the signal.
      if (process.listenerCount(sig) > 1) return;
      live.forEach((c) => c.kill('SIGKILL'));
      process.removeListener(sig, onSignal);
      process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

const hostFor = (ip: string) => (ip === '0.0.0.0' || ip === '::' ? '127.0.0.1' : ip);
const joinHostPort = (host: string, port: number) => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** The value of `--flag N` or `--flag=N` in args, if there. */
function flagValue(args: string[], flag: string): number | undefined {
  const i = args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (i < 0) return undefined;
  const value = args[i].includes('=') ? args[i].slice(flag.length + 1) : args[i + 1];
  return Number(value) || undefined;
}

/** Every port the server binds that it lets us choose; null: chosen through extraArgs. */
interface Ports {
  port: number;
  uiPort: number | false;
  httpPort: number | null;
  metricsPort: number | null;
}

/**
 * Starts `temporal server start-dev`. The ports not given are chosen here, the HTTP API and metrics ports too
 * (the CLI would pick those itself), and a start that dies because another process took one of them before the
 * server bound it is retried on fresh ports. A given port that is in use is an error at once: it is the caller's.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const log = options.log ?? (() => {});
  const ip = options.ip ?? '127.0.0.1';
  const cliPath = options.cliPath ?? (await findTemporalCli({ log }));
  const choose = options.choosePort ?? findFreePort;
  const host = hostFor(ip);
  const extra = options.extraArgs ?? [];
  const httpFromArgs = flagValue(extra, '--http-port');
  const metricsFromArgs = flagValue(extra, '--metrics-port');

  const given = new Map<number, string>();
  if (options.port !== undefined) given.set(options.port, 'gRPC port');
  if (typeof options.uiPort === 'number') given.set(options.uiPort, 'Web UI port');
  if (httpFromArgs) given.set(httpFromArgs, 'HTTP API port');
  if (metricsFromArgs) given.set(metricsFromArgs, 'metrics port');
  const inUse = (port: number) =>
    new Error(
      `the Temporal dev server's ${given.get(port) ?? 'port'} ${port} is in use (another Temporal server?): ` +
        'stop what uses it, or choose another port',
    );
  // Asked before starting: a check that something answers on the port would find the OTHER server there.
  for (const port of given.keys()) if (!(await isPortFree(port, ip))) throw inUse(port);
  if (options.dbFile) await fs.mkdir(path.dirname(path.resolve(options.dbFile)), { recursive: true });

  const choosePorts = async (): Promise<Ports> => ({
    port: options.port ?? (await choose(host)),
    // The CLI's own UI default (port + 1000) may be taken when the gRPC port is random, so pick a free one.
    uiPort: options.uiPort === false ? false : (options.uiPort ?? (await choose(host))),
    httpPort: httpFromArgs === undefined ? await choose(host) : null,
    metricsPort: metricsFromArgs === undefined ? await choose(host) : null,
  });
  return retryOnPortClash('temporal server start-dev', async () => launch(cliPath, options, await choosePorts()), {
    log,
    given: [...given.keys()],
    explain: inUse,
  });
}

/** One start on the given ports; a PortClashError when the server died because one of them was taken. */
async function launch(cliPath: string, options: DevServerOptions, ports: Ports): Promise<DevServer> {
  const log = options.log ?? (() => {});
  const ip = options.ip ?? '127.0.0.1';
  const namespace = options.namespace ?? 'default';
  const { port, uiPort } = ports;

  const args = ['server', 'start-dev', '--port', String(port), '--ip', ip, '--namespace', namespace];
  if (ports.httpPort !== null) args.push('--http-port', String(ports.httpPort));
  if (ports.metricsPort !== null) args.push('--metrics-port', String(ports.metricsPort));
  args.push('--log-format', 'pretty', '--log-level', options.logLevel ?? 'warn');
  // Stops the server from phoning home to check for new versions.
  args.push('--dynamic-config-value', 'frontend.enableServerVersionCheck=false');
  for (const value of options.dynamicConfig ?? EMBEDDED_SERVER_DYNAMIC_CONFIG) args.push('--dynamic-config-value', value);
  if (options.dbFile) args.push('--db-filename', path.resolve(options.dbFile));
  args.push(...(uiPort === false ? ['--headless'] : ['--ui-port', String(uiPort)]));
  args.push(...searchAttributeArgs(), ...(options.extraArgs ?? []));

  const started = Date.now();
  const child = spawn(cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  installExitHooks();
  live.add(child);
  let stopping = false;
  let output = '';
  let stdoutHead = '';
  // Always drain the pipes (a full pipe would block the server); keep a tail for error messages.
  // Only stderr (warnings, errors) is forwarded to the log; stdout is just the startup banner.
  const onData = (isStderr: boolean) => (buf: Buffer) => {
    const text = buf.toString();
    output = (output + text).slice(-4000);
    if (!isStderr && stdoutHead.length < 4000) stdoutHead += text;
    if (isStderr && !stopping) for (const line of text.split('\n')) if (line.trim() && !isServerLogNoise(line)) log(`[temporal] ${line}`);
  };
  child.stdout!.on('data', onData(false));
  child.stderr!.on('data', onData(true));
  const exited = new Promise<string>((resolve) => {
    child.once('error', (err) => resolve(`failed to spawn ${cliPath}: ${err.message}`));
    child.once('close', (code, signal) => resolve(`exited with ${signal ?? `code ${code}`}`));
  });
  void exited.then(() => live.delete(child));
  let exitReason: string | null = null;
  void exited.then((r) => (exitReason = r));

  const stop = async (): Promise<void> => {
    stopping = true;
    if (exitReason === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    live.delete(child);
  };

  const host = hostFor(ip);
  const address = joinHostPort(host, port);
  const deadline = started + (options.startTimeoutMs ?? 60_000);
  let answeredAt: number | null = null;
  try {
    for (;;) {
      if (exitReason !== null) throw new Error(`temporal server start-dev ${exitReason} before becoming ready`);
      if (Date.now() > deadline) throw new Error(`temporal server start-dev not ready after ${Date.now() - started} ms`);
      // Cheap TCP probe first; the gRPC call only once something listens. Not awaited past the child's exit:
      // on a port another process took, the probe would wait out its deadline.
      const answers = (async () => (await tcpOpen(host, port)) && (await isServerReachable(address, 2000)))();
      if (await Promise.race([answers, exited.then(() => false)])) {
        // The CLI prints its banner ("Server: host:port") once every port is bound. Until then what answers may
        // be ANOTHER server that took the port we chose (ours then dies). A CLI without that banner is believed
        // after 3 s of answers.
        answeredAt ??= Date.now();
        if (/^Server:\s/m.test(stdoutHead) || Date.now() - answeredAt > 3000) break;
      }
      await Promise.race([new Promise((r) => setTimeout(r, 100)), exited]);
    }
  } catch (err) {
    const diedOnItsOwn = exitReason !== null;
    await stop();
    const tail = output.trim().split('\n').slice(-15).join('\n');
    const message = `${(err as Error).message}\ncommand: ${cliPath} ${args.join(' ')}\noutput tail:\n${tail}`;
    const clash = diedOnItsOwn ? portClash(output) : undefined;
    throw clash === undefined ? new Error(message) : new PortClashError(message, clash);
  }
  log(`Temporal dev server ready at ${address} in ${Date.now() - started} ms`);
  const uiUrl = uiPort === false ? null : `http://${joinHostPort(host, uiPort)}`;
  return { address, port, uiUrl, httpPort: ports.httpPort, metricsPort: ports.metricsPort, namespace, process: child, stop };
}

/** A server log line that says only that a caller went away mid-request: a worker that stopped while its long poll
 * was open, a command that ended (`level=ERROR … context canceled`). Nothing is wrong; the user is told nothing. */
export function isServerLogNoise(line: string): boolean {
  return /\bcontext canceled\b/.test(line) && !/\b(panic|fatal)\b/i.test(line);
}
