// The model call in flight, read from the server's description of the run (`describe()`): its pending
// activity, and the progress its last heartbeat carried (output tokens so far, the last words). Needs no worker
// and adds nothing to history.
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { ModelCallProgress } from '../core/types.js';
import { isObject } from '../core/is-object.js';
import { pendingActivities, type PendingActivity } from './pending-activities.js';

export interface ModelCallInFlight extends Pick<PendingActivity, 'activityId' | 'attempt' | 'state' | 'lastHeartbeatAt' | 'lastFailure'> {
  /** What the stream has produced so far (absent before the first heartbeat with details). */
  progress?: ModelCallProgress;
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
  return isObject(value) && typeof value.outputTokens === 'number' && typeof value.lastWords === 'string';
}
