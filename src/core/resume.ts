// What a resumed run starts from, given the stopped run's input, its state at the end and its result: the same
// task and settings with the new limits, and the carried state with the guards that judge the recent past reset.
// Pure: the client reads the old run (src/client/resume.ts), this decides what the new one gets.
import type { RunState } from './durable-state.js';
import { roundUsd } from './pricing.js';
import { notRunResults } from './run-state.js';
import { textOf, totalTokens } from './transcript.js';
import type { AgentInput, AgentResult, AgentSettings, MessageParam } from './types.js';

export interface ResumeLimits {
  /** Steps allowed beyond those already taken. */
  moreSteps?: number;
  /** Tokens allowed beyond those already spent. */
  moreBudgetTokens?: number;
  /** Dollars allowed beyond those already spent (its sub-agents' included). */
  moreBudgetUsd?: number;
  /** A new deadline, counted from the resume; without one the resumed run has none. */
  deadlineMs?: number;
}

/** The input of the run that resumes `previous` at `now` (epoch ms). */
export function resumedRun(
  input: Pick<AgentInput, 'task' | 'settings'>,
  ended: { state: Omit<RunState, 'messages'>; messages: MessageParam[] },
  previous: AgentResult,
  limits: ResumeLimits,
  now: number,
): Required<Pick<AgentInput, 'task' | 'settings' | 'carried'>> {
  const { state, messages } = ended;
  const settings: AgentSettings = { ...input.settings };
  if (limits.moreSteps !== undefined) settings.maxSteps = state.loop.steps + limits.moreSteps;
  if (limits.moreBudgetTokens !== undefined) settings.budgetTokens = totalTokens(state.loop.usage) + limits.moreBudgetTokens;
  if (limits.moreBudgetUsd !== undefined) settings.budgetUsd = roundUsd((state.loop.costUsd ?? 0) + limits.moreBudgetUsd);
  // A deadline counts from now; without a new one, the resumed run has none (the old one has passed, or was what
  // stopped it).
  settings.deadlineMs = limits.deadlineMs;
  const carried: RunState = {
    ...state,
    messages: withResumeNote(messages, previous),
    // A fresh start for the guards that judge the recent past; spend and step counts carry on.
    loop: { ...state.loop, errorStreak: 0, toolCallHashes: {} },
    deadlineAt: limits.deadlineMs !== undefined ? now + limits.deadlineMs : null,
    pendingMessages: [],
  };
  // A run that continued as new carries its task as the transcript's first message only (not in `task`).
  return { task: input.task || textOf(messages[0]?.content ?? []), settings, carried };
}

/** A transcript that ends with the model's turn (a summary, a refusal, a cut-off reply) gets a user message
 * saying the run goes on: the next request must not end with an assistant message (the API would treat it as
 * a prefill to continue). */
function withResumeNote(messages: MessageParam[], previous: AgentResult): MessageParam[] {
  if (messages.at(-1)?.role !== 'assistant') return messages;
  const why = previous.guard ? `the ${previous.guard} guard` : (previous.error ?? previous.status);
  const note = `The run was stopped (${why}) and has now been resumed with new limits. Tools are available again: continue the task.`;
  // A run the server closed mid-turn (terminated, timed out) left its tool calls unanswered: the API needs
  // their results first.
  const open = notRunResults(messages, `the run was ${previous.status}`);
  if (open && Array.isArray(open.content)) return [...messages, { role: 'user', content: [...open.content, { type: 'text', text: note }] }];
  return [...messages, { role: 'user', content: note }];
}
