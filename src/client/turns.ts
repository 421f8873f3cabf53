// The tokens and cost of each model call of a run (the console's per-turn chart), read from the run's history: each
// callModel result holds its usage. A read adds nothing to the history; encrypted payloads are decoded with the
// client's codecs.
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { costUsd, priceFor } from '../core/pricing.js';
import type { AgentInput, ModelReply, Usage } from '../core/types.js';

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
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const input = await decode<AgentInput>(client, events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]);
  const firstStep = (input?.carried?.loop.steps ?? 0) + 1;
  const modelCalls = new Set<string>();
  const turns: TurnUsage[] = [];
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'callModel') modelCalls.add(String(e.eventId));
    const done = e.activityTaskCompletedEventAttributes;
    if (!done || !modelCalls.has(String(done.scheduledEventId))) continue;
    const reply = await decode<ModelReply>(client, done.result?.payloads?.[0]);
    if (!reply) continue;
    const price = priceFor(reply.model, input?.settings.prices ?? {}) ?? priceFor(reply.model) ?? priceFor(input?.settings.model ?? '');
    const cost = price ? costUsd(reply.usage, price) + (reply.compactionUsage ? costUsd(reply.compactionUsage, price) : 0) : null;
    turns.push({ step: firstStep + turns.length, model: reply.model, usage: reply.usage, costUsd: cost, stopReason: reply.stopReason });
  }
  return turns;
}

async function decode<T>(client: Client, payload: Payload | null | undefined): Promise<T | undefined> {
  if (!payload) return undefined;
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  let payloads: Payload[] = [payload];
  for (const codec of [...payloadCodecs].reverse()) payloads = await codec.decode(payloads);
  return payloadConverter.fromPayload<T>(payloads[0]);
}
