// What a fork starts from: the source run's transcript cut just before step N (each step is one model reply, an
// assistant message, followed by what the run sent back: tool results, follow-ups), and the state the fork carries.
// Pure: the client reads the source (src/client/fork.ts), this decides what the fork gets.
import { withInstruction } from './compaction.js';
import type { ForkOrigin, RunState } from './durable-state.js';
import { freshLoop } from './run-state.js';
import { toolUseBlocks } from './transcript.js';
import type { AgentSettings, ContentBlock, MessageParam } from './types.js';

/** A --from-step the source cannot be forked at (out of its recorded steps). */
export class ForkStepError extends Error {
  override name = 'ForkStepError';
}

/** The steps a transcript has recorded: its model replies (assistant messages), in order. */
export function recordedSteps(messages: readonly MessageParam[]): number {
  return messages.filter((m) => m.role === 'assistant').length;
}

/** The last step a fork may start at: a recorded step (its reply is replaced by a live call), or, when the transcript
 * ends with the run's answer to its last reply (tool results in, the next call not yet recorded: a running run), the
 * step after it. */
export function lastForkableStep(messages: readonly MessageParam[]): number {
  const steps = recordedSteps(messages);
  return steps > 0 && messages.at(-1)?.role === 'user' ? steps + 1 : steps;
}

/** The messages before step `fromStep`'s model reply: every earlier reply and result, whole (tool_use ids kept). */
export function transcriptBeforeStep(messages: readonly MessageParam[], fromStep: number, what = 'the run'): MessageParam[] {
  const last = lastForkableStep(messages);
  if (!Number.isInteger(fromStep) || fromStep < 1 || fromStep > last) {
    const steps = recordedSteps(messages);
    const range = last >= 1 ? `--from-step must be 1 to ${last}` : 'it cannot be forked yet';
    throw new ForkStepError(`${what} has ${steps} recorded step${steps === 1 ? '' : 's'}: ${range} (got ${fromStep})`);
  }
  let seen = 0;
  const end = messages.findIndex((m) => m.role === 'assistant' && ++seen === fromStep);
  return messages.slice(0, end === -1 ? messages.length : end);
}

/** The user message that steers the fork (`--message`), added after the reused steps: merged into their last user
 * message (tool results must come first in it, and two user messages in a row would be merged by the API anyway). */
export function withSteeringMessage(messages: MessageParam[], text: string | undefined): MessageParam[] {
  return text ? withInstruction(messages, text) : messages;
}

/** The tool calls made in the reused steps (client tools: what the run executed). */
export function toolCallsIn(messages: readonly MessageParam[]): number {
  return messages
    .filter((m) => m.role === 'assistant' && Array.isArray(m.content))
    .reduce((n, m) => n + toolUseBlocks(m.content as ContentBlock[]).length, 0);
}

/** The ids of the tool calls made in steps 1 … fromStep−1 (their model replies' tool_use blocks). */
export function toolUseIdsBeforeStep(messages: readonly MessageParam[], fromStep: number): string[] {
  return messages
    .filter((m) => m.role === 'assistant')
    .slice(0, Math.max(0, fromStep - 1))
    .flatMap((m) => (Array.isArray(m.content) ? toolUseBlocks(m.content as ContentBlock[]).map((b) => b.id) : []));
}

/** The step cap of the fork counts its live steps: `liveSteps` model calls after the reused ones. */
export function forkMaxSteps(fromStep: number, liveSteps: number): number {
  return fromStep - 1 + liveSteps;
}

/** The live steps a run's settings allow: a fork's cap counts the steps it reused, which a fork of it does not. */
export function liveStepsOf(settings: AgentSettings, forkedFrom: ForkOrigin | undefined): number {
  return forkedFrom ? Math.max(1, settings.maxSteps - (forkedFrom.step - 1)) : settings.maxSteps;
}

/** The state the fork carries: the reused transcript, its steps counted (so the first live call is step `fromStep`),
 * nothing spent yet (the reused usage is in `ForkOrigin`), the guards that judge the recent past fresh, and what the
 * job fixes at its start (tool definitions and policies, sub-agents) left for the fork to record with its settings. */
export function forkedRunState(
  source: Pick<RunState, 'compactions' | 'clientSummary' | 'refused' | 'clearedUpTo'>,
  messages: MessageParam[],
  fromStep: number,
  deadlineMs: number | undefined,
  now: number,
): RunState {
  const compactions = source.compactions?.filter((c) => c.messageIndex < messages.length);
  const summary = source.clientSummary && source.clientSummary.messageIndex <= messages.length ? source.clientSummary : undefined;
  return {
    messages,
    loop: freshLoop(fromStep - 1),
    stopReason: null,
    deadlineAt: deadlineMs !== undefined ? now + deadlineMs : null,
    // initialRunState adds this run.
    runsUsed: 0,
    pendingMessages: [],
    clearedUpTo: Math.min(source.clearedUpTo, messages.length),
    chatClosed: false,
    ...(compactions?.length ? { compactions } : {}),
    ...(summary ? { clientSummary: summary } : {}),
    ...(source.refused ? { refused: source.refused } : {}),
  };
}

/** How `status` names a fork's origin. */
export function forkedFromLine(origin: ForkOrigin): string {
  return `forked from ${origin.workflowId} at step ${origin.step}`;
}
