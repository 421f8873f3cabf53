// The model call in flight, read from the server's description of the run (`describe()`): its pending
// activity, and the progress its last heartbeat carried (output tokens so far, the last words). Needs no worker
// and adds nothing to history.
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { decodeArrayFromPayloads, decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { optionalTsToDate } from '@temporalio/common/lib/time.js';
import type { ModelCallProgress } from '../core/types.js';

export interface ModelCallInFlight {
  activityId: string;
  /** 1 for the first attempt; more when the call is being retried. */
  attempt: number;
  /** `scheduled` (waiting for a worker, or for the retry backoff), `started`, `cancel_requested`, ... */
  state: string;
  lastHeartbeatAt?: Date;
  /** What the stream has produced so far (absent before the first heartbeat with details). */
  progress?: ModelCallProgress;
  /** Why the previous attempt failed, when this is a retry. */
  lastFailure?: string;
}

// temporal.api.enums.v1.PendingActivityState, by number (the proto package is not a dependency of ours).
const STATES = ['unspecified', 'scheduled', 'started', 'cancel_requested', 'paused', 'pause_requested'];

/** The `callModel` activities pending in the run `description` describes, with their decoded heartbeat details. */
export async function modelCallsInFlight(client: Client, description: WorkflowExecutionDescription): Promise<ModelCallInFlight[]> {
  const pending = (description.raw.pendingActivities ?? []).filter((a) => a.activityType?.name === 'callModel');
  return Promise.all(
    pending.map(async (a): Promise<ModelCallInFlight> => {
      const call: ModelCallInFlight = {
        activityId: a.activityId ?? '',
        attempt: a.attempt ?? 1,
        state: STATES[a.state ?? 0] ?? String(a.state),
        lastHeartbeatAt: optionalTsToDate(a.lastHeartbeatTime),
      };
      const converter = client.options.loadedDataConverter;
      try {
        const [details] = await decodeArrayFromPayloads(converter, a.heartbeatDetails?.payloads);
        if (isProgress(details)) call.progress = details;
        // Through the failure converter: with encryption on, the message itself is encoded.
        const failure = await decodeOptionalFailureToOptionalError(converter, a.lastFailure);
        if (failure?.message) call.lastFailure = failure.message;
      } catch {
        // What this client cannot decode (another key): the call is still shown, without its words.
      }
      return call;
    }),
  );
}

function isProgress(value: unknown): value is ModelCallProgress {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ModelCallProgress).outputTokens === 'number' &&
    typeof (value as ModelCallProgress).lastWords === 'string'
  );
}
