// The activities a run has pending, read from the server's description of it (`describe()`): their state, attempt,
// and the details their last heartbeat carried, decoded. Needs no worker and adds nothing to history.
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { decodeFailure, decodePayloadAt, timestampToDate } from './decode.js';

export interface PendingActivity {
  activityId: string;
  /** 1 for the first attempt; more when the call is being retried. */
  attempt: number;
  /** The retry policy's limit; 0 for no limit. */
  maximumAttempts: number;
  /** `scheduled` (waiting for a worker, or for the retry backoff), `started`, `cancel_requested`, ... */
  state: string;
  lastHeartbeatAt?: Date;
  /** When the current attempt started (absent while it waits to be). */
  lastStartedAt?: Date;
  /** The last heartbeat's details (absent before the first heartbeat with details, or when not decodable here). */
  details?: unknown;
  /** Why the previous attempt failed, when this is a retry. */
  lastFailure?: string;
}

// temporal.api.enums.v1.PendingActivityState, by number.
const STATES = ['unspecified', 'scheduled', 'started', 'cancel_requested', 'paused', 'pause_requested'];

/** The pending activities of `activityType` in the run `description` describes. */
export async function pendingActivities(
  client: Client,
  description: WorkflowExecutionDescription,
  activityType: string,
): Promise<PendingActivity[]> {
  const pending = (description.raw.pendingActivities ?? []).filter((a) => a.activityType?.name === activityType);
  return Promise.all(
    pending.map(async (a): Promise<PendingActivity> => {
      const activity: PendingActivity = {
        activityId: a.activityId ?? '',
        attempt: a.attempt ?? 1,
        maximumAttempts: a.maximumAttempts ?? 0,
        state: STATES[a.state ?? 0] ?? String(a.state),
        lastHeartbeatAt: timestampToDate(a.lastHeartbeatTime),
        lastStartedAt: timestampToDate(a.lastStartedTime),
      };
      try {
        const details = await decodePayloadAt(client, a.heartbeatDetails?.payloads, 0);
        if (details !== undefined) activity.details = details;
        // Through the failure converter: with encryption on, the message itself is encoded.
        const failure = await decodeFailure(client, a.lastFailure);
        if (failure?.message) activity.lastFailure = failure.message;
      } catch {
        // What this client cannot decode (another key): the activity is still shown, without its details.
      }
      return activity;
    }),
  );
}
