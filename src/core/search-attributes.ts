// Custom search attributes: registered on the embedded server at start, and documented in docs/inspecting.md
// (`temporal operator search-attribute create`) for other servers. Search attributes are stored in plain
// text (never through a payload codec), so nothing secret may go in them.
import { roundUsd } from './pricing.js';
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair, type TypedSearchAttributes } from '@temporalio/common';
import { totalTokens } from './transcript.js';
import type { AgentStatusView } from './types.js';

export const AgentStatus = defineSearchAttributeKey('AgentStatus', SearchAttributeType.KEYWORD);
export const AgentSteps = defineSearchAttributeKey('AgentSteps', SearchAttributeType.INT);
export const AgentTokens = defineSearchAttributeKey('AgentTokens', SearchAttributeType.INT);
export const AgentCostUsd = defineSearchAttributeKey('AgentCostUsd', SearchAttributeType.DOUBLE);
export const AgentStopReason = defineSearchAttributeKey('AgentStopReason', SearchAttributeType.KEYWORD);
export const AgentGuard = defineSearchAttributeKey('AgentGuard', SearchAttributeType.KEYWORD);
export const AgentModel = defineSearchAttributeKey('AgentModel', SearchAttributeType.KEYWORD);

export const AGENT_SEARCH_ATTRIBUTES = [
  AgentStatus,
  AgentSteps,
  AgentTokens,
  AgentCostUsd,
  AgentStopReason,
  AgentGuard,
  AgentModel,
] as const;

/** Set once, when a fork starts (the workflow id of the run it forked): not in AGENT_SEARCH_ATTRIBUTES, which the run
 * upserts as it goes. */
export const AgentForkedFrom = defineSearchAttributeKey('AgentForkedFrom', SearchAttributeType.KEYWORD);

/** The set of runs a task file started (`start --tasks FILE`): set once when each run starts, never written by the
 * run itself (so not in AGENT_SEARCH_ATTRIBUTES either). `list --batch NAME` filters on it. A schedule's runs need no
 * attribute of ours: the server sets `TemporalScheduledById` on each run it starts. */
export const AgentTaskBatch = defineSearchAttributeKey('AgentTaskBatch', SearchAttributeType.KEYWORD);

/** Every attribute a server needs registered: the embedded server and the full stack register these. */
export const REGISTERED_SEARCH_ATTRIBUTES = [...AGENT_SEARCH_ATTRIBUTES, AgentForkedFrom, AgentTaskBatch] as const;

/** Temporal's own attribute naming the schedule that started a run (the schedule's id). */
export const SCHEDULED_BY_ID = 'TemporalScheduledById';

/** The values a run's search attributes take for this view of it, in AGENT_SEARCH_ATTRIBUTES order. */
export function searchAttributeValues(view: AgentStatusView): [string, number, number, number, string, string, string] {
  // Money to the micro-dollar, as every output gives it (the view keeps the running total as it adds up).
  return [view.status, view.steps, totalTokens(view.usage), roundUsd(view.costUsd) ?? 0, view.stopReason ?? '', view.guard ?? '', view.model];
}

/** Which of the values (same order) move on every turn of a running run (upserted at most every
 * SEARCH_ATTRIBUTE_PROGRESS_INTERVAL_MS while the others stay the same); the others say what state the run is in. */
export const PROGRESS_VALUE = AGENT_SEARCH_ATTRIBUTES.map((key) => [AgentSteps, AgentTokens, AgentCostUsd, AgentStopReason].some((k) => k.name === key.name));

/** `values` (AGENT_SEARCH_ATTRIBUTES order) as the key–value pairs Temporal's APIs take. */
export function attributePairs(values: ReturnType<typeof searchAttributeValues>): SearchAttributePair[] {
  return AGENT_SEARCH_ATTRIBUTES.map((key, i) => ({ key, value: values[i] }) as SearchAttributePair);
}

/** The attributes a run starts with (startAgent sets them, so a new run's visibility record has them before its first
 * workflow task, and the run does not upsert them again): a fresh run's first view, running with nothing spent. */
export function startingSearchAttributes(model: string): SearchAttributePair[] {
  return attributePairs(['running', 0, 0, 0, '', '', model]);
}

/** The values of `attributes` in AGENT_SEARCH_ATTRIBUTES order, or null unless it has all of them. */
export function agentSearchAttributeValues(attributes: TypedSearchAttributes): (string | number)[] | null {
  const values: (string | number)[] = [];
  for (const key of AGENT_SEARCH_ATTRIBUTES) {
    const value: unknown = attributes.get(key);
    if (typeof value !== 'string' && typeof value !== 'number') return null;
    values.push(value);
  }
  return values;
}
