// A worker and the workers that must run beside it (its encryption keys' queues: createAgentWorker), started and
// stopped together.
import type { Worker } from '@temporalio/worker';

/** Runs `worker` (through `next`) and `companions` beside it, until it ends; a companion that stops (or fails) stops
 * the worker too, since without it the worker would take runs it cannot finish. The worker's own failure wins;
 * otherwise a companion's is rethrown once all have stopped. */
export async function runBeside(worker: Worker, next: (w: Worker) => Promise<void>, companions: readonly Worker[]): Promise<void> {
  if (companions.length === 0) return next(worker);
  const stopWorker = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  const runs = companions.map((companion) => companion.run().finally(stopWorker));
  // Awaited below, once the worker has ended; until then a rejection must not go unhandled (it would crash the
  // process before the error could come back through the caller).
  for (const run of runs) run.catch(() => undefined);
  const stopCompanions = async () => {
    for (const companion of companions) if (companion.getState() === 'RUNNING') companion.shutdown();
    return Promise.allSettled(runs);
  };
  try {
    await next(worker);
  } catch (err) {
    await stopCompanions();
    throw err;
  }
  const failed = (await stopCompanions()).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}
