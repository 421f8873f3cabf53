// The tokens and cost of each model call of a run (the console's per-turn chart), read from the run's history: each
// callModel result holds its usage (an activity's result, or a local activity's marker with `localModelCalls`; in batch
// mode, the poll's marker that found the reply, priced at the batch price). A
// read adds nothing to the history; encrypted payloads are decoded with the client's codecs.
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { costUsd, priceFor, roundUsd } from '../core/pricing.js';
import type { AgentInput, BatchPoll, ModelReply, Usage } from '../core/types.js';
import { decodePayloadAt } from './decode.js';
import { fetchHistoryInPages } from './history.js';

/** The name of the marker Temporal's core records for a local activity's outcome. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

export interface TurnUsage {
  /** The model call's number in the job (1 for the first). */
  step: number;
  model: string;
  usage: Usage;
  /** Its cost in USD (a compaction it made included); null when the model has no known price. */
  costUsd: number | null;
  stopReason: string | null;
}

/** The model calls of the current run of `workflowId` that have completed, in order. */
export async function getTurnUsage(client: Client, workflowId: string): Promise<TurnUsage[]> {
  return (await turnsOfRun(client, workflowId)).turns;
}

/** The model calls of one run (the current one without `runId`) that have completed, its input, and the run it
 * continued as new from (a job's steps span its chain of runs). */
export async function turnsOfRun(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<{ turns: TurnUsage[]; input: AgentInput | undefined; previousRunId: string | undefined }> {
  // In pages small enough for any client (fetchHistory asks for one answer, which a client with gRPC's 4 MB limit
  // cannot take for a run with large events).
  const history = await fetchHistoryInPages(client, workflowId, runId);
  const events = history.events ?? [];
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const input = await decodePayloadAt<AgentInput>(client, started?.input?.payloads, 0);
  const firstStep = (input?.carried?.loop.steps ?? 0) + 1;
  const modelCalls = new Set<string>();
  const turns: TurnUsage[] = [];
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'callModel') modelCalls.add(String(e.eventId));
    const done = e.activityTaskCompletedEventAttributes;
    const result = done && modelCalls.has(String(done.scheduledEventId)) ? done.result : localModelCallResult(e);
    const decoded = await decodePayloadAt<ModelReply | BatchPoll>(client, result?.payloads, 0);
    // A batch-mode call's reply is in the poll that found it succeeded (a poll still pending holds none).
    const reply = decoded && 'status' in decoded ? (decoded.status === 'succeeded' ? decoded.reply : undefined) : decoded;
    if (!reply) continue;
    const price = priceFor(reply.model, input?.settings.prices ?? {}) ?? priceFor(reply.model) ?? priceFor(input?.settings.model ?? '');
    const batch = reply.batch !== undefined;
    const cost = price ? costUsd(reply.usage, price, batch) + (reply.compactionUsage ? costUsd(reply.compactionUsage, price, batch) : 0) : null;
    turns.push({ step: firstStep + turns.length, model: reply.model, usage: reply.usage, costUsd: roundUsd(cost), stopReason: reply.stopReason });
  }
  // Set by continue-as-new only (a resumed run is a new start of the id).
  const previousRunId = started?.continuedExecutionRunId || undefined;
  return { turns, input, previousRunId };
}

/** The result of a model call made as a local activity (`localModelCalls`): a marker whose data (core's own, never
 * encoded) names the activity type. */
function localModelCallResult(e: temporal.api.history.v1.IHistoryEvent): temporal.api.common.v1.IPayloads | null | undefined {
  const marker = e.markerRecordedEventAttributes;
  if (marker?.markerName !== LOCAL_ACTIVITY_MARKER) return undefined;
  const data = marker.details?.data?.payloads?.[0];
  const type = data ? defaultPayloadConverter.fromPayload<{ activity_type?: string }>(data).activity_type : undefined;
  return type === 'callModel' || type === 'pollModelBatchRequest' ? marker.details?.result : undefined;
}
