// The state of one agent run (its shape, `RunState`, is in durable-state.ts): how a run starts, and the pure
// steps that close a run that a guard stopped or carry it into continue-as-new.
import type { AgentInput, RunState, ToolOutcome } from './durable-state.js';
import type { GuardTripped } from './guards.js';
import { RECENT_MESSAGES_KEPT_WHOLE } from './policies.js';
import { toolUseBlocks, ZERO_USAGE } from './transcript.js';
import type { ContentBlock, MessageParam, ToolResultBlockParam } from './types.js';

/** A run's loop counters before its first live step: `steps` already taken (a fork's reused ones), nothing spent. */
export function freshLoop(steps: number): RunState['loop'] {
  return { steps, toolCalls: 0, usage: { ...ZERO_USAGE }, lastCallUsage: null, costUsd: null, toolCallHashes: {}, errorStreak: 0 };
}

/** The state of a new run: the carried one (continue-as-new, resume) or a fresh one. */
export function initialRunState(input: AgentInput, now: number): RunState {
  if (input.carried) return { ...input.carried, runsUsed: input.carried.runsUsed + 1 };
  return {
    messages: [{ role: 'user', content: input.task }],
    loop: freshLoop(0),
    stopReason: null,
    deadlineAt: input.settings.deadlineMs !== undefined ? now + input.settings.deadlineMs : null,
    runsUsed: 1,
    pendingMessages: [],
    clearedUpTo: 0,
    chatClosed: false,
  };
}

/** The user message that takes follow-ups sent while the run was busy. Appended to the tool results of a
 * turn when there are some (results must come first), else as a message of its own. */
export function withFollowUps(message: MessageParam | null, followUps: string[]): MessageParam | null {
  if (followUps.length === 0) return message;
  const texts = followUps.map((text) => ({ type: 'text' as const, text }));
  if (!message) return { role: 'user', content: texts };
  const content = typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
  return { ...message, content: [...content, ...texts] } as MessageParam;
}

/** How a run words the tool results it writes itself, where no tool answered: a reviewer's denial, a call a stop
 * left unrun or cut off. `replay` tells them from the tools' own results by these (src/core/replay-compare.ts). */
export const DENIED_RESULT_PREFIX = 'A human reviewer denied this call to ';
export const NOT_RUN_RESULT_PREFIX = 'Not run: ';
export const INTERRUPTED_RESULT_PREFIX = 'Interrupted: ';
/** An old tool result continue-as-new cut to a note to fit the carried state (fitForContinueAsNew). */
export const TRIMMED_RESULT_PREFIX = '[tool result trimmed at continue-as-new: ';

/** How far each tool call of the current turn got: its outcome, or `in_flight` while it runs. */
export type TurnProgress = Record<string, ToolOutcome | 'in_flight'>;

/** Results for every tool_use of the last assistant turn that has none yet: the API rejects a conversation
 * with an unanswered tool_use, and the transcript must stay valid for a summary call, a follow-up or a
 * resume. A call that finished keeps its real result; one that was running is marked as interrupted (it may
 * have taken effect); the others were not run. */
function openToolResults(messages: readonly MessageParam[], why: string, progress: TurnProgress = {}): ToolResultBlockParam[] {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'assistant' || typeof last.content === 'string') return [];
  return toolUseBlocks(last.content as ContentBlock[]).map((call): ToolResultBlockParam => {
    const done = progress[call.id];
    if (done && done !== 'in_flight') {
      return { type: 'tool_result', tool_use_id: call.id, content: done.content, ...(done.isError ? { is_error: true } : {}) };
    }
    const content =
      done === 'in_flight'
        ? `${INTERRUPTED_RESULT_PREFIX}${why}. The call was running and may or may not have taken effect.`
        : `${NOT_RUN_RESULT_PREFIX}${why}.`;
    return { type: 'tool_result', tool_use_id: call.id, content, is_error: true };
  });
}

/** The user message that closes a stopped run without a summary call, or null when nothing is open. */
export function notRunResults(messages: readonly MessageParam[], why: string, progress?: TurnProgress): MessageParam | null {
  const results = openToolResults(messages, why, progress);
  return results.length > 0 ? { role: 'user', content: results } : null;
}

/** The user message that asks for a summary of progress: the open tool results first (the API requires them
 * first in the message), then the request. */
export function summaryRequest(messages: readonly MessageParam[], tripped: GuardTripped): MessageParam {
  const results = openToolResults(messages, `the run was stopped by the ${tripped.guard} guard`);
  const text =
    `The run has been stopped by the harness: ${tripped.reason}. You cannot use tools any more. ` +
    'Reply with a short summary for the user: what you found so far, what is still missing or uncertain, and ' +
    'what you would do next. Say plainly that this is a partial answer.';
  return { role: 'user', content: [...results, { type: 'text', text }] };
}

/** The most a run carries into continue-as-new: under Temporal's 2 MB payload limit, with room to spare. */
export const MAX_CARRIED_BYTES = 1_500_000;

/** The state to carry into the next run, made to fit in one payload: the oldest tool results are trimmed to a
 * short note (the newest stay whole) until it fits. Returns null when even that is not enough. */
export function fitForContinueAsNew(state: RunState, maxBytes = MAX_CARRIED_BYTES): RunState | null {
  let size = utf8Bytes(JSON.stringify(state));
  if (size <= maxBytes) return state;
  const messages = state.messages.slice();
  for (let i = 0; i < messages.length - RECENT_MESSAGES_KEPT_WHOLE && size > maxBytes; i++) {
    const m = messages[i];
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    const content = m.content.map((b) => {
      if (b.type !== 'tool_result') return b;
      const text = typeof b.content === 'string' ? b.content : JSON.stringify(b.content ?? '');
      if (text.length <= 200) return b;
      return { ...b, content: `${TRIMMED_RESULT_PREFIX}${text.length} characters]` };
    });
    const trimmed = { ...m, content } as MessageParam;
    size += utf8Bytes(JSON.stringify(trimmed)) - utf8Bytes(JSON.stringify(m));
    messages[i] = trimmed;
  }
  return size <= maxBytes ? { ...state, messages } : null;
}

const utf8 = new TextEncoder();

/** The UTF-8 size of a string: payload limits are in bytes, and CJK text or emoji take 3 or 4 bytes a
 * character. (TextEncoder is available in the workflow sandbox.) */
export function utf8Bytes(text: string): number {
  return utf8.encode(text).length;
}
