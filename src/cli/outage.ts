// Riding out a server outage. A Temporal server restarted for an upgrade, or a laptop's embedded server
// restarted, must not end `run`, `result` or `watch`: the run itself is durable, so waiting for it is too.
// While the server does not answer they say so once on stderr, keep retrying, and go on when it is back.
import { AsyncLocalStorage } from 'node:async_hooks';
import { logLine } from './log.js';

// gRPC status codes: the server is not there (UNAVAILABLE), or did not answer in time (DEADLINE_EXCEEDED).
const UNAVAILABLE = 14;
const DEADLINE_EXCEEDED = 4;

/** Whether `err` (or what caused it) says the server cannot be reached right now, as opposed to an answer. */
export function isServerUnreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === UNAVAILABLE || code === DEADLINE_EXCEEDED) return true;
    if (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(code)) return true;
    if (/\b(UNAVAILABLE|ECONNREFUSED|Connection refused|transport error|connection reset)\b/i.test(e.message)) return true;
  }
  return false;
}

// Set while a call runs inside throughOutage: the CLI's client (src/cli/temporal.ts) then gives up on an unavailable
// server after about 1 s of retries instead of the Temporal client's 20 s, since this loop retries it anyway, and says
// so at once.
const ridingOutage = new AsyncLocalStorage<true>();

/** Whether the caller is inside throughOutage (which retries an unreachable server's calls by itself). */
export function insideOutageLoop(): boolean {
  return ridingOutage.getStore() === true;
}

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5_000;

export interface OutageOptions {
  /** What is waiting, for the messages: "waiting for the run's result". */
  what: string;
  address: string;
}

/** Runs `fn`, again and again while the server is unreachable (saying so once per outage), until it answers. */
export async function throughOutage<T>(options: OutageOptions, fn: () => Promise<T>): Promise<T> {
  let down = false;
  let delay = FIRST_RETRY_MS;
  for (;;) {
    try {
      const value = await ridingOutage.run(true, fn);
      if (down) logLine(`the Temporal server at ${options.address} answers again: ${options.what} goes on`);
      return value;
    } catch (err) {
      if (!isServerUnreachable(err)) throw err;
      if (!down) {
        logLine(
          `the Temporal server at ${options.address} is unreachable: ${options.what} waits and retries until it is back ` +
            '(the run is kept on the server; Ctrl-C stops waiting)',
        );
      }
      down = true;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }
}
