// Ports for the servers we start. A port found free is handed to a child process that binds it a moment later;
// on a busy machine another process can take it in between, and the child dies with "bind: address already in
// use". Two defences: findFreePort leaves the port in TIME_WAIT so that the OS does not hand it out again for a
// minute, and the starters retry with fresh ports when a port they chose was taken anyway (retryOnPortClash).
import net from 'node:net';

/** Picks a free port on a host; injectable so a test can hand out a port it holds. */
export type PortChooser = (host: string) => Promise<number>;

/** Starts after the first try; each gets fresh ports. */
export const PORT_CLASH_RETRIES = 3;

/**
 * Asks the OS for a free port, then connects to it once and closes the server side first: that leaves a socket
 * on the port in TIME_WAIT (60 s on Linux), during which the OS skips the port when anyone asks for an ephemeral
 * one (listen on :0, an outgoing connection), while a server that sets SO_REUSEADDR (Node, Go, PostgreSQL) can
 * still bind it. Without this the port is the likeliest one for the next process asking to get.
 */
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  const srv = net.createServer((sock) => sock.destroy());
  srv.unref();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, host, resolve);
  });
  const { port } = srv.address() as net.AddressInfo;
  // Best effort: if the connection fails the port is still free, just not reserved.
  await new Promise<void>((resolve) => {
    const client = net.connect({ host: connectHost(host), port });
    const timer = setTimeout(() => client.destroy(), 1000);
    client.resume(); // read to the FIN so the client closes after the server side
    client.once('error', () => {});
    client.once('close', () => (clearTimeout(timer), resolve()));
  });
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** Whether a TCP port can be listened on right now (a port in TIME_WAIT can: we set SO_REUSEADDR, as servers do). */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.unref();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

const connectHost = (host: string) => (host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host);

/**
 * Whether a child's output says it could not bind a port, and which one if it says (Go: "listen tcp
 * 127.0.0.1:7233: bind: address already in use"; PostgreSQL: "could not bind IPv4 address "127.0.0.1": Address
 * already in use"). undefined: no clash; null: a clash on a port the output does not name.
 */
export function portClash(output: string): number | null | undefined {
  if (!/address already in use|EADDRINUSE/i.test(output)) return undefined;
  const named = /listen tcp [^\s]*:(\d+): bind: address already in use/i.exec(output);
  return named ? Number(named[1]) : null;
}

/** A start that failed because a port was taken; `port` is the one named, if any. */
export class PortClashError extends Error {
  constructor(
    message: string,
    readonly port: number | null,
  ) {
    super(message);
    this.name = 'PortClashError';
  }
}

/**
 * Runs `attempt` (which chooses its ports afresh each time) until it does not fail with a PortClashError, at most
 * 1 + PORT_CLASH_RETRIES times; one log line per retry. `given` are the ports the caller chose: a clash on one of
 * those is not ours to work around, so `explain` turns it into the error the caller sees at once.
 */
export async function retryOnPortClash<T>(
  what: string,
  attempt: () => Promise<T>,
  options: { log: (m: string) => void; given?: number[]; explain?: (port: number) => Error },
): Promise<T> {
  for (let tryNo = 0; ; tryNo++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof PortClashError)) throw err;
      if (err.port !== null && options.given?.includes(err.port)) throw options.explain?.(err.port) ?? err;
      if (tryNo >= PORT_CLASH_RETRIES) throw err;
      const which = err.port === null ? 'a port' : `port ${err.port}`;
      options.log(`${what}: ${which} was taken by another process before it could bind it; retrying on fresh ports (${tryNo + 2}/${PORT_CLASH_RETRIES + 1})`);
    }
  }
}
