// The model call in flight, read from the server's description of the run (`describe()`): its pending
// activity, and the progress its last heartbeat carried (output tokens so far, the last words). Needs no worker
// and adds nothing to history.
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { ModelCallProgress } from '../core/types.js';
import { pendingActivities } from './pending-activities.js';

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

/** The `callModel` activities pending in the run `description` describes, with their decoded heartbeat details. */
export async function modelCallsInFlight(client: Client, description: WorkflowExecutionDescription): Promise<ModelCallInFlight[]> {
  const pending = await pendingActivities(client, description, 'callModel');
  return pending.map(({ activityId, attempt, state, lastHeartbeatAt, details, lastFailure }) => ({
    activityId,
    attempt,
    state,
    lastHeartbeatAt,
    ...(isProgress(details) ? { progress: details } : {}),
    ...(lastFailure ? { lastFailure } : {}),
  }));
}

function isProgress(value: unknown): value is ModelCallProgress {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ModelCallProgress).outputTokens === 'number' &&
    typeof (value as ModelCallProgress).lastWords === 'string'
  );
}
