// The harness guards: pure functions over the loop state, so they are unit-tested without a server and
// the workflow only asks "may the loop go on?". The model decides when it is done; these decide when it is not.
import { toolCallKey } from './canonical.js';
import { RECENT_MESSAGES_KEPT_WHOLE } from './policies.js';
import { BATCH_PRICE_FACTOR, costUsd, estimateNextCall, priceFor, type ModelPrice } from './pricing.js';
import { addUsage, oneLine, promptTokens, totalTokens } from './transcript.js';
import type { AgentSettings, GuardName, LoopState, Usage } from './durable-state.js';

/** A tool requested this many times with the same arguments is a run going round in circles. */
export const REPETITION_LIMIT = 3;
/** This many tool calls in a row that end in an error stop the run. */
export const ERROR_STREAK_LIMIT = 3;

export interface GuardTripped {
  guard: GuardName;
  /** Why the run stopped, in words a user can act on. */
  reason: string;
}

/** The user's price file wins over the built-in table. */
export function modelPrice(settings: AgentSettings): ModelPrice | undefined {
  return (settings.prices && priceFor(settings.model, settings.prices)) || priceFor(settings.model);
}

/** Adds one model call's usage (and its cost, when the price is known; `batch`: at the Message Batches price). */
export function recordModelCall(state: LoopState, usage: Usage, settings: AgentSettings, compactionUsage?: Usage, batch = false): void {
  const price = modelPrice(settings);
  // A compaction's usage is reported apart from the call's: both are spent. The call's alone is the prompt the
  // next call starts from.
  const spent = compactionUsage ? addUsage(usage, compactionUsage) : usage;
  state.steps++;
  state.usage = addUsage(state.usage, spent);
  state.lastCallUsage = usage;
  state.costUsd = price ? (state.costUsd ?? 0) + costUsd(spent, price, batch) : null;
}

/** Checked before every model call: the step cap, and a budget the next call cannot fit in. */
export function guardBeforeModelCall(state: LoopState, settings: AgentSettings): GuardTripped | null {
  if (state.steps >= settings.maxSteps) {
    return { guard: 'max_steps', reason: `step cap reached: ${state.steps} model calls (--max-steps ${settings.maxSteps})` };
  }
  return guardNextCallFits(state, settings);
}

/** The budget half of the check before a call (also asked before a summary call, which the step cap allows):
 * spent already, or a cheap lower bound shows the next call cannot fit. */
export function guardNextCallFits(state: LoopState, settings: AgentSettings): GuardTripped | null {
  const spent = guardBudget(state, settings);
  if (spent) return spent;
  const price = modelPrice(settings);
  const estimate = estimateNextCall(state.lastCallUsage, settings.maxOutputTokens, price ?? ZERO_PRICE);
  // A lower bound: in batch mode the next call costs at least the batch price (a direct fallback costs more).
  const next = settings.modelCalls === 'batch' ? { ...estimate, usd: estimate.usd * BATCH_PRICE_FACTOR } : estimate;
  const tokens = totalTokens(state.usage);
  if (settings.budgetTokens !== undefined && tokens + next.tokens > settings.budgetTokens) {
    return {
      guard: 'budget',
      reason: `token budget: ${tokens} of ${settings.budgetTokens} tokens used, and the next call needs at least ${next.tokens}`,
    };
  }
  if (settings.budgetUsd !== undefined && price && (state.costUsd ?? 0) + next.usd > settings.budgetUsd) {
    return {
      guard: 'budget',
      reason: `cost budget: $${fmtUsd(state.costUsd ?? 0)} of $${settings.budgetUsd} spent, and the next call costs at least $${fmtUsd(next.usd)}`,
    };
  }
  return null;
}

/** Checked after every model call: a call whose usage took the run over its budget ends it. */
export function guardBudget(state: LoopState, settings: AgentSettings): GuardTripped | null {
  const tokens = totalTokens(state.usage);
  if (settings.budgetTokens !== undefined && tokens >= settings.budgetTokens) {
    return { guard: 'budget', reason: `token budget spent: ${tokens} of ${settings.budgetTokens} tokens` };
  }
  if (settings.budgetUsd !== undefined && state.costUsd !== null && state.costUsd >= settings.budgetUsd) {
    return { guard: 'budget', reason: `cost budget spent: $${fmtUsd(state.costUsd)} of $${settings.budgetUsd}` };
  }
  return null;
}

/** Records a turn's tool requests in `state.toolCallHashes` (it mutates the state, unlike the `guard…`
 * checks); a call requested for the REPETITION_LIMIT-th time trips the guard, before any call of that turn
 * runs. */
export function recordRepetition(state: LoopState, calls: ReadonlyArray<{ name: string; input: unknown }>): GuardTripped | null {
  for (const call of calls) {
    const key = toolCallKey(call.name, call.input);
    const count = (state.toolCallHashes[key] ?? 0) + 1;
    if (count >= REPETITION_LIMIT) {
      return {
        guard: 'repetition',
        reason: `${call.name} was requested ${count} times with the same arguments (${oneLine(JSON.stringify(call.input) ?? String(call.input), 120)})`,
      };
    }
    state.toolCallHashes[key] = count;
  }
  return null;
}

/** Records the outcomes of a turn's tool calls in `state.errorStreak`, in tool_use order, and trips when ERROR_STREAK_LIMIT of them in
 * a row ended in an error at any point (across turns, or inside one turn even if a later call succeeded). */
export function recordErrorStreak(state: LoopState, outcomes: ReadonlyArray<{ isError: boolean }>): GuardTripped | null {
  let longest = 0;
  for (const outcome of outcomes) {
    state.errorStreak = outcome.isError ? state.errorStreak + 1 : 0;
    longest = Math.max(longest, state.errorStreak);
  }
  if (longest >= ERROR_STREAK_LIMIT) {
    return { guard: 'error_streak', reason: `${longest} tool calls in a row ended in an error` };
  }
  return null;
}

const ZERO_PRICE: ModelPrice = { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 };

function fmtUsd(usd: number): string {
  return usd.toFixed(usd < 1 ? 4 : 2);
}

/** Context management: once a call's prompt reaches the threshold, clear the tool results of all but the most
 * recent messages from later requests. Returns the new "cleared up to" index, or null for no change. */
export function nextClearIndex(state: LoopState, messageCount: number, clearedUpTo: number, thresholdTokens: number): number | null {
  if (!state.lastCallUsage || promptTokens(state.lastCallUsage) < thresholdTokens) return null;
  const next = messageCount - RECENT_MESSAGES_KEPT_WHOLE;
  return next > clearedUpTo ? next : null;
}
