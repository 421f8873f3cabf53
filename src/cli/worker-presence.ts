// Whether any worker polls a run's task queue: a command that waits for a run says so when none does, rather than
// seem to hang (the run waits on the server until a worker comes).
import type { Client } from '@temporalio/client';
import { keyIdOfTaskQueue } from '../core/policies.js';
import { commandLine } from './invocation.js';
import { logLine } from './log.js';

/** After this long still waiting, look for a worker once. */
export const WORKER_CHECK_AFTER_MS = 5_000;

/** A worker polls its queue at least once a minute (a long poll lasts up to a minute): none for longer is none. */
const RECENT_POLL_MS = 2 * 60_000;

/** For `start`, which does not wait: says on stderr, at once, when no worker has polled `taskQueue` recently (the run
 * then waits on the server until one does). `noWorker`: what asking the workers already found. */
export async function warnWhenNoWorker(client: Client, taskQueue: string, workflowId: string, noWorker?: boolean): Promise<void> {
  const { lastPolled } = await import('../client/task-queue.js');
  const polled = noWorker ? { polled: false } : await lastPolled(client, taskQueue);
  if (!polled) return; // the server could not say: no guess
  const recent = polled.polled && (!('at' in polled) || !polled.at || Date.now() - polled.at.getTime() < RECENT_POLL_MS);
  if (recent && !noWorker) return;
  const since = 'at' in polled && polled.at ? ` (one last polled it ${Math.round((Date.now() - polled.at.getTime()) / 1000)} s ago)` : '';
  logLine(
    `warning: no worker has polled task queue "${taskQueue}" recently${since}: run ${workflowId} waits on the server until one does. ` +
      `Start one (${commandLine('worker')}); \`${commandLine(`result ${workflowId}`)}\` waits for its result`,
  );
}

/** Checks once, after WORKER_CHECK_AFTER_MS, that a worker polls `taskQueue`, and says so when none does. Returns
 * the function that cancels the check (call it when the wait ends). */
export function sayWhenNoWorker(client: Client, taskQueue: string, workflowId: string): () => void {
  const timer = setTimeout(() => {
    void import('../client/task-queue.js').then(({ hasPollers }) => hasPollers(client, taskQueue)).then((polled) => {
      if (polled === false) {
        const keyId = keyIdOfTaskQueue(taskQueue.slice(0, Math.max(0, taskQueue.lastIndexOf('@'))), taskQueue);
        const whose = keyId ? ` (the queue of runs encrypted with key id "${keyId}": only workers whose AGENT_ENCRYPTION_KEYS lists it poll it)` : '';
        logLine(
          `no worker is polling task queue "${taskQueue}"${whose}: the run waits on the server until one does. Start one ` +
            `(${commandLine('worker')}), or go on with a worker in this process (${commandLine(`run --id ${workflowId}`)}); still waiting`,
        );
      }
    });
  }, WORKER_CHECK_AFTER_MS);
  timer.unref();
  return () => clearTimeout(timer);
}
