// A workaround for a gap in the Temporal SDK, written against @temporalio/worker 1.24.0 (sdk-core #709): its core
// neither cancels a local activity when its worker shuts down nor finishes the shutdown before the activity ends
// (it lets the worker hang rather than kill user code). A model call made as a local activity (`localModelCalls`)
// can take minutes, so a stopping worker would stay alive that long, and `shutdownGraceTime` does not help.
// So the worker ends its local model calls itself once it has been stopping for its shutdownGraceTime (the time an
// ordinary activity is given before it is cancelled): each fails with WORKER_STOPPING_FAILURE_TYPE, and the run makes
// the call again as an activity, which another worker takes (workflows/proxies.ts, scheduleModelCall).
// test/workflows/local-model-calls.test.ts ("a worker shutting down during a local call ...") times out when this
// stops ending them; once the SDK cancels local activities on shutdown itself, the call's failure there is a
// cancellation instead of WORKER_STOPPING_FAILURE_TYPE, the test fails on it, and this file can go.
import { setMaxListeners } from 'node:events';
import { ApplicationFailure } from '@temporalio/common';
import type { Worker } from '@temporalio/worker';
import { WORKER_STOPPING_FAILURE_TYPE } from '../core/policies.js';

/** How often a running worker's state is read (the SDK has no event for the start of a shutdown). */
const STATE_POLL_MS = 250;

export class LocalModelCalls {
  readonly #stopping = new AbortController();

  constructor() {
    // Each local call in flight listens to `stopping` (callModel): any number at once.
    setMaxListeners(0, this.#stopping.signal);
  }

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
      const stop = () => this.#stopping.abort();
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

/** How a local model call its worker ended, or would not start, fails: not retried here (the worker is going); the run
 * makes the call again as an activity. */
export function workerStoppingFailure(): ApplicationFailure {
  return ApplicationFailure.create({
    type: WORKER_STOPPING_FAILURE_TYPE,
    nonRetryable: true,
    message: 'this worker is shutting down (its shutdownGraceTime has passed): the run makes this model call again as an activity, which another worker takes',
  });
}
