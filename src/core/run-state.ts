// The state of one agent run, JSON-plain so it can be carried through continue-as-new as it is, and the
// pure steps that close a run that a guard stopped.
import type { GuardTripped, LoopState } from './guards.js';
import { toolUseBlocks, ZERO_USAGE } from './transcript.js';
import type { AgentInput, ContentBlock, MessageParam, StopReason, ToolResultBlockParam } from './types.js';

export interface RunState {
  messages: MessageParam[];
  loop: LoopState;
  stopReason: StopReason | null;
  /** Absolute wall-clock deadline (epoch ms), fixed once at the start; null without --deadline. */
  deadlineAt: number | null;
}

export function initialRunState(input: AgentInput, now: number): RunState {
  return {
    messages: [{ role: 'user', content: input.task }],
    loop: {
      steps: 0,
      toolCalls: 0,
      usage: { ...ZERO_USAGE },
      lastCallUsage: null,
      costUsd: null,
      toolCallCounts: {},
      errorStreak: 0,
    },
    stopReason: null,
    deadlineAt: input.settings.deadlineMs !== undefined ? now + input.settings.deadlineMs : null,
  };
}

/** is_error results for every tool_use of the last assistant turn that has none: the API rejects a
 * conversation with an unanswered tool_use, and the transcript must stay valid for a summary call, a
 * follow-up or a resume. */
function openToolResults(messages: readonly MessageParam[], why: string): ToolResultBlockParam[] {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'assistant' || typeof last.content === 'string') return [];
  return toolUseBlocks(last.content as ContentBlock[]).map((call) => ({
    type: 'tool_result',
    tool_use_id: call.id,
    content: `Not run: ${why}.`,
    is_error: true,
  }));
}

/** The user message that closes a stopped run without a summary call, or null when nothing is open. */
export function notRunResults(messages: readonly MessageParam[], tripped: GuardTripped): MessageParam | null {
  const results = openToolResults(messages, `the run was stopped by the ${tripped.guard} guard (${tripped.reason})`);
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
