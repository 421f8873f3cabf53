// What a worker knows of the local model calls (`localModelCalls`) it runs on one task queue: their bound, and whether
// it is stopping. A local call runs inside a workflow task, and Temporal's core neither cancels a local activity when
// its worker shuts down nor finishes the shutdown before it ends (it lets the worker hang rather than kill user code):
// a held or slow model call would keep a stopping worker alive until the call ended. So the worker ends its local
// calls itself, after its shutdownGraceTime (the time an ordinary activity is given before it is cancelled), and
// answers each with a refusal: the run makes the call again as an activity, which another worker takes.
import { setMaxListeners } from 'node:events';
import type { Worker } from '@temporalio/worker';
import type { ModelCallRefused } from '../core/model-call-route.js';
import { ModelCallGate } from './model-call-gate.js';

/** How often a running worker's state is read (the SDK has no event for the start of a shutdown). */
const STATE_POLL_MS = 250;

export class LocalModelCalls {
  readonly #stopping = new AbortController();

  /** `bound`: local calls at once (localModelCallBound), each holds one of the worker's workflow-task slots. */
  constructor(bound: number) {
    this.gate = new ModelCallGate(bound);
    // Each call in flight listens to `stopping` (callModel): up to `bound` at once, more than Node's default 10.
    setMaxListeners(Math.max(bound, 10), this.#stopping.signal);
  }

  readonly gate: ModelCallGate;

  /** Aborts once the worker has been shutting down for its grace time: local calls still running then end. */
  get stopping(): AbortSignal {
    return this.#stopping.signal;
  }

  /** Aborts `stopping` `graceMs` after `worker` starts to shut down; the returned function stops watching (call it
   * when the worker has stopped). */
  watch(worker: Pick<Worker, 'getState'>, graceMs: number): () => void {
    let grace: ReturnType<typeof setTimeout> | undefined;
    const poll = setInterval(() => {
      const state = worker.getState();
      if (state === 'INITIALIZED' || state === 'RUNNING') return;
      clearInterval(poll);
      const stop = () => this.#stopping.abort(workerStoppingRefusal());
      if (graceMs > 0) grace = setTimeout(stop, graceMs);
      else stop();
    }, STATE_POLL_MS);
    poll.unref();
    return () => {
      clearInterval(poll);
      clearTimeout(grace);
    };
  }
}

/** The answer to a local model call its worker ended, or would not start, because the worker is shutting down. */
export function workerStoppingRefusal(): ModelCallRefused {
  return {
    refused: 'this-call',
    reason: 'this worker is shutting down (its shutdownGraceTime has passed): the run makes this call again as an activity, which another worker takes',
  };
}
