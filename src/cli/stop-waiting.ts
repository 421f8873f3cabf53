// Ctrl-C or SIGTERM ends a command that waits for a run (`result`, `watch`, `status`; `approve`, `deny`, `send` and
// `answer` waiting for a worker to take their update) at once: it stops waiting, the
// run goes on on the server. Exit 130 ("detached", as `run` on Ctrl-C), with the command that waits again on stderr.
// Temporal's runtime, installed by a command that reads a run's history, has SIGINT and SIGTERM handlers of its own
// that only stop workers (there are none in these commands): without this, the signal would be swallowed and the wait
// would go on until the run ended.
import { commandLine } from './invocation.js';
import { logLine } from './log.js';
import { EXIT, exitWhenFlushed } from './output.js';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** Runs `fn` (the whole command, from before it connects), ending the process with exit 130 on SIGINT or SIGTERM.
 * `again`: the command that picks the wait up again, e.g. `result <id>`; `said`, what the line says instead (a
 * steering command's update, which may still reach the run). */
export async function stopWaitingOnSignal<T>(workflowId: string, again: string, fn: () => Promise<T>, said?: string): Promise<T> {
  const stop = (signal: NodeJS.Signals) => {
    for (const s of STOP_SIGNALS) process.off(s, stop);
    logLine(`\nstopped waiting (${signal}): ${said ?? `run ${workflowId} goes on on the server; ${commandLine(again)} picks it up again`}`);
    void exitWhenFlushed(EXIT.detached);
  };
  for (const s of STOP_SIGNALS) process.on(s, stop);
  try {
    return await fn();
  } finally {
    for (const s of STOP_SIGNALS) process.off(s, stop);
  }
}

/** Resolves at the first SIGINT or SIGTERM: a command that serves until Ctrl-C (`serve`, `server`, `codec-server`). */
export function stopRequested(): Promise<void> {
  return new Promise((resolve) => {
    for (const s of STOP_SIGNALS) process.once(s, () => resolve());
  });
}
