// One tool call from the workflow's side: scheduled with its tool's policy, and a call that failed for good (its
// attempts spent, its timeout hit) turned into an `is_error` result that says what happened, so the run goes on.
import { ActivityFailure, ApplicationFailure, isCancellation, TimeoutFailure } from '@temporalio/workflow';
import { formatDuration } from '../core/duration.js';
import { attemptText, toolCallSchedule, type ToolCallSchedule } from '../core/tool-policy.js';
import { answersAfter } from '../core/elicitation.js';
import type { AgentSettings, ToolCallInput, ToolCallPolicy, ToolOutcome } from '../core/types.js';
import type { Elicitations } from './elicitations.js';
import { scheduleToolCall } from './proxies.js';

/** The schedule of a call to `name`: from the tools' policies the run recorded when it started (or `--tool-timeout`);
 * undefined in a run that recorded none (it has no tools), whose calls take the default options. */
export function scheduleFor(
  name: string,
  policies: Record<string, ToolCallPolicy> | undefined,
  settings: AgentSettings,
): ToolCallSchedule | undefined {
  if (!policies && settings.toolTimeoutMs === undefined) return undefined;
  return toolCallSchedule(policies?.[name], settings);
}

/** The calls' outcomes in order, once every one has settled (a rejection, say a cancel, only then): `Promise.allSettled`
 * then `Promise.all`, which create five promises for a turn's one call; that one call's own promise then does. */
export function allSettledThenAll<T>(calls: Promise<T>[]): Promise<T[]> {
  if (calls.length === 1) return calls[0].then((outcome) => [outcome]);
  return Promise.allSettled(calls).then(() => Promise.all(calls));
}

/** A call whose MCP server asks a question (an elicitation) stops with it; the run holds the question until it is
 * answered, then makes the call again with the answers so far, which the server's repeated request gets. */
// Promise chains rather than async functions: a call creates two promises here instead of four (the SDK's stack-trace
// hook formats a stack for each promise a workflow creates, which the workflow task pays for).
export function callTool(
  input: ToolCallInput,
  schedule: ToolCallSchedule | undefined,
  settings: AgentSettings,
  asking?: { elicitations: Elicitations; changed: () => void },
): Promise<ToolOutcome> {
  return callToolOnce(input, schedule, settings).then((outcome) => {
    if (!outcome.question || !asking || !input.elicitation) return outcome;
    return callAgainWithAnswer(input, outcome.question, schedule, settings, asking, input.elicitation);
  });
}

/** Waits for the question's answer, then makes the call again with the answers so far. */
async function callAgainWithAnswer(
  input: ToolCallInput,
  question: NonNullable<ToolOutcome['question']>,
  schedule: ToolCallSchedule | undefined,
  settings: AgentSettings,
  asking: { elicitations: Elicitations; changed: () => void },
  elicitation: NonNullable<ToolCallInput['elicitation']>,
): Promise<ToolOutcome> {
  const answer = await asking.elicitations.answerFor(question, asking.changed);
  return callTool({ ...input, elicitation: { answers: answersAfter(elicitation.answers, question.index, answer) } }, schedule, settings, asking);
}

function callToolOnce(input: ToolCallInput, schedule: ToolCallSchedule | undefined, settings: AgentSettings): Promise<ToolOutcome> {
  return scheduleToolCall(input, { schedule, heartbeatTimeoutMs: settings.heartbeatTimeoutMs }).catch((err: unknown) => {
    // Retries exhausted: the model sees the failure and the loop goes on (the error streak bounds it).
    if (isCancellation(err)) throw err;
    if (err instanceof ActivityFailure) return { isError: true, content: failureText(input.name, err, schedule) };
    // A local call's (a fast tool's) own failure comes as the activity threw it, not wrapped in an ActivityFailure.
    if (schedule?.fast && err instanceof ApplicationFailure) return { isError: true, content: `Tool "${input.name}" failed: ${err.message}` };
    throw err;
  });
}

/** `Tool "build" timed out after 2h on attempt 3 of 3 (...)`, or the tool's own failure. */
function failureText(name: string, err: ActivityFailure, schedule: ToolCallSchedule | undefined): string {
  const cause = err.cause;
  if (!schedule || !(cause instanceof TimeoutFailure)) return `Tool "${name}" failed: ${cause?.message ?? err.message}`;
  // Timeouts are retried until the attempts are spent, so the last attempt is the one that timed out.
  const attempt = err.retryState === 'MAXIMUM_ATTEMPTS_REACHED' ? ` on ${attemptText(schedule.maximumAttempts, schedule.maximumAttempts)}` : '';
  if (cause.timeoutType === 'HEARTBEAT') {
    const beat = schedule.heartbeatTimeoutMs ? ` for ${formatDuration(schedule.heartbeatTimeoutMs)}` : '';
    return `Tool "${name}" did not complete: its worker stopped answering${beat}${attempt} (it crashed or hung); the call's result is unknown`;
  }
  const after = ` after ${formatDuration(schedule.timeoutMs)}`;
  const later = schedule.completesLater ? ' (no outside completion arrived in time)' : '';
  return `Tool "${name}" timed out${after}${attempt}${later}: the call did not complete within its timeout`;
}
