// Where a model call runs. Since the patch `model-calls-eager` a run schedules each model call on its own task
// queue first, so that the server hands it back eagerly to the worker that scheduled it (no dispatch; BENCHMARKS.md
// (a)). That worker runs it only within its `maxModelCalls`: a call beyond it is refused at once (it holds no slot
// and no timeout while refused) and the run schedules it on the model queue (`<taskQueue>-model`) instead, where
// it waits in the server's queue as every model call did before.

/** What a worker answers, instead of a reply, to a model call on the run's queue that it does not run: refused at
 * once, so the call holds no slot and no timeout (an answer, not a failure: nothing failed, and no worker logs it
 * as one). `this-call`: the worker already runs its `maxModelCalls`; the run sends this call to the model queue and
 * tries its own queue again for the next. `every-call`: this worker's model calls must go through the model queue
 * (it has a fleet-wide `modelCallsPerSecond`, which only the model queue enforces; or a tuner of its own, whose
 * slots cannot keep model calls beside tool calls; or `runModelWorker: false`); the run sends every later call there. */
export interface ModelCallRefused {
  refused: 'this-call' | 'every-call';
  reason: string;
}

export function isModelCallRefused(answer: object): answer is ModelCallRefused {
  return 'refused' in answer;
}

/** How long a model call scheduled on the run's queue may wait there to start (when it was not dispatched eagerly
 * and no worker has a free slot, e.g. every slot runs a long tool call) before the run schedules it on the model
 * queue instead. A model call takes seconds; this is rare (the worker that scheduled it takes it eagerly). */
export const RUN_QUEUE_START_TIMEOUT = '10 seconds';
