// A worker and the workers that must run beside it (its key queues'), started and stopped
// together.
import type { Worker } from '@temporalio/worker';

/** Runs `worker` (through `next`) and `companions` beside it: the worker starts at once (a caller that stops it
 * right away, runUntil whose function fails fast, must find it running, or its shutdown is lost and it runs
 * forever); each companion runs once created, until the worker ends; a companion that fails to start or stops
 * stops the worker (without it the worker would take runs it cannot finish). */
export async function runBeside(worker: Worker, next: (w: Worker) => Promise<void>, companions: Array<Promise<Worker>>): Promise<void> {
  if (companions.length === 0) return next(worker);
  let mainEnded = false;
  const runs: Array<Promise<void> | undefined> = companions.map(() => undefined);
  const stopMain = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  const started = companions.map((companion, i) =>
    companion.then(
      (w) => {
        if (mainEnded) return;
        const run = w.run().finally(stopMain);
        // Rethrown below, once the main worker has ended; until then a rejection must not go unhandled (it would
        // crash the process before the error could come back through the caller).
        run.catch(() => undefined);
        runs[i] = run;
      },
      (err: unknown) => {
        stopMain();
        throw err;
      },
    ),
  );
  for (const s of started) s.catch(() => undefined); // awaited below, after the main worker ends
  try {
    await next(worker);
  } finally {
    mainEnded = true;
    await Promise.allSettled(
      companions.map(async (companion, i) => {
        const w = await companion.catch(() => undefined);
        if (w?.getState() === 'RUNNING') w.shutdown();
        // Created after the main worker had already ended: run it for nothing so its resources are released.
        if (w && !runs[i]) await w.runUntil(Promise.resolve()).catch(() => undefined);
      }),
    );
    const ended = await Promise.allSettled(runs);
    const failed = ended.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
  for (const s of started) await s;
}
