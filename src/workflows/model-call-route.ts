// Which queue a run's model call is scheduled on (core/model-call-route.ts says why): its own queue first, where
// the worker that scheduled it takes it eagerly, and the model queue when a worker refuses it there (busy: this
// call; a worker whose model calls must go through the model queue: every later call of the run) or when it could
// not start there within RUN_QUEUE_START_TIMEOUT.
// A run with `localModelCalls` makes each call a local activity first (in the workflow task that schedules it); a
// worker that refuses it there (busy, or model-queue-only) sends it down the path above. After a busy refusal the run
// makes its next calls as activities straight away (1, 2, 4, then 8 of them after refusals in a row) before it tries
// locally again: a worker at its bound would refuse them too, and each refusal costs the run a local activity.
import { TimeoutType } from '@temporalio/common';
import { ActivityFailure, patched, TimeoutFailure } from '@temporalio/workflow';
import { isModelCallRefused } from '../core/model-call-route.js';
import type { ModelCallByDigest, ModelCallInput, ModelReply } from '../core/types.js';
import { scheduleLocalModelCall, scheduleModelCall, type ModelCallOptions } from './proxies.js';
import { takesPatch } from './patches.js';

/** Patch id: a run with `localModelCalls` makes its model calls as local activities. Asked only by such runs (at
 * their first model call), so no other run records it; a run recorded before it (which had the setting from a newer
 * client, and scheduled activities) replays as it ran. */
export const LOCAL_MODEL_CALLS = 'local-model-calls';

/** Patch id: model calls are scheduled on the run's own task queue first (eager), and on the model queue when
 * refused there. Runs recorded before it schedule every model call on the model queue, and replay so. */
export const MODEL_CALLS_EAGER = 'model-calls-eager';

/** At most this many calls as activities between two local tries (after refusals in a row). */
const MAX_CALLS_BEFORE_LOCAL_TRY = 8;

export class ModelCallRoute {
  /** Set when a worker said this run's model calls must go through the model queue. */
  #modelQueueOnly = false;
  /** Busy refusals of local calls in a row, and the calls still to make as activities before the next local try. */
  #localRefusals = 0;
  #callsBeforeLocalTry = 0;

  async call(input: ModelCallInput | ModelCallByDigest, step: number, options: ModelCallOptions = {}): Promise<ModelReply> {
    if (options.local && !this.#modelQueueOnly && this.#localTryDue() && patched(LOCAL_MODEL_CALLS)) {
      const answer = await scheduleLocalModelCall(input, step, options);
      if (!isModelCallRefused(answer)) {
        this.#localRefusals = 0;
        return answer;
      }
      if (answer.refused === 'every-call') this.#modelQueueOnly = true;
      else this.#callsBeforeLocalTry = Math.min(MAX_CALLS_BEFORE_LOCAL_TRY, 2 ** this.#localRefusals++);
    }
    let onRunQueue = !this.#modelQueueOnly && takesPatch(MODEL_CALLS_EAGER);
    for (;;) {
      const answer = await scheduleModelCall(input, step, { ...options, onRunQueue }).catch((err: unknown) => {
        if (onRunQueue) return notStartedInTime(err);
        throw err;
      });
      if (answer && !isModelCallRefused(answer)) return answer;
      if (answer?.refused === 'every-call') this.#modelQueueOnly = true;
      // Refused on the run's queue, or not started there in time: the model queue. (A call refused off that path was
      // scheduled on the run's queue by older code, before the model queue: the model queue too.)
      onRunQueue = false;
    }
  }

  /** Whether this call tries locally (false: one of the calls made as activities after a busy refusal). */
  #localTryDue(): boolean {
    if (this.#callsBeforeLocalTry === 0) return true;
    this.#callsBeforeLocalTry--;
    return false;
  }
}

/** Undefined when the call could not start on the run's queue in time (the run then sends it to the model queue);
 * any other failure, a cancellation included, is the call's own. */
function notStartedInTime(err: unknown): undefined {
  if (err instanceof ActivityFailure && err.cause instanceof TimeoutFailure && err.cause.timeoutType === TimeoutType.SCHEDULE_TO_START) return undefined;
  throw err;
}
