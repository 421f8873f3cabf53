// The agent loop as a Temporal workflow: call the model, append the whole reply, switch on stop_reason, run
// the tools, append all results in one user message, check the guards, repeat.
// Deterministic code only: I/O happens in the activities, which this file knows by type alone.
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  isCancellation,
  log,
  makeContinueAsNewFunc,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { submittedAnswer } from '../core/finish-tool.js';
import { guardBeforeModelCall, guardBudget, recordErrorStreak, recordRepetition } from '../core/guards.js';
import { TRANSCRIPT_PAGE_BYTES } from '../core/policies.js';
import { fitForContinueAsNew, MAX_CARRIED_BYTES, utf8Bytes } from '../core/run-state.js';
import { InvalidSettingsError, settingsProblem } from '../core/settings-check.js';
import { textOf, toolUseBlocks, transcriptPage as pageOf } from '../core/transcript.js';
import type { AgentInput, AgentResult, ModelReply } from '../core/types.js';
import { AGENT_RUN_FAILED, agentStatus, answerElicitation, closeChat, decideToolCall, modelSettings, runState, sendMessage, subAgentReport, toolDefinitions, transcriptPage } from './definitions.js';
import { callModelCompacting } from './compaction.js';
import { AgentRun, causeMessage } from './run.js';
import { recordToolDefinitions } from './tool-definitions.js';
import { continueAsNewDue } from '../core/versioning.js';
import { upgradeOnContinueAsNew } from './versioning.js';
import { inRunSpan, reportRunStarted } from './telemetry.js';

export async function agentWorkflow(input: AgentInput): Promise<AgentResult> {
  refuseInvalidSettings(input);
  const run = new AgentRun(input);
  setHandlers(run);
  reportRunStarted(input);
  run.publish();
  return inRunSpan(input, run, () => run.view(), () => runToEnd(run));
}

async function runToEnd(run: AgentRun): Promise<AgentResult> {
  try {
    return await raceDeadline(run, () => agentLoop(run));
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancelled by a user: the partial answer is what the agent had said so far.
    run.closeOpenToolUses('the run was cancelled');
    return run.end({ status: 'cancelled', guard: null, error: null });
  } finally {
    run.forgetTranscript(); // however it ends, continue-as-new included
    if (run.webhooks.scheduled) await run.webhooks.settled(); // an activity does not outlive its workflow
  }
}

function refuseInvalidSettings(input: AgentInput): void {
  // A continuation (continue-as-new, resume) goes on with settings its job started with: a job accepted by an
  // older version is not failed half-way by a stricter check.
  if (input.carried) return;
  const found = settingsProblem(input.settings);
  if (!found) return;
  const error = new InvalidSettingsError(found.field, found.problem, found.path);
  throw ApplicationFailure.create({ message: error.message, type: error.name, nonRetryable: true });
}

async function agentLoop(run: AgentRun): Promise<AgentResult> {
  const { settings, state } = run;
  await recordToolDefinitionsOrFail(run);
  for (;;) {
    // Checked here, and only awaited when due: each promise a turn creates costs the workflow task time (the SDK's
    // stack-trace hook formats a stack for every one).
    if (continueAsNewDue(continueAsNewInputs(run))) await continueAsNewNow(run);
    const before = guardBeforeModelCall(state.loop, settings);
    if (before) return run.stopByGuard(before);

    const reply = await callModelOrFail(run);
    run.appendReply(reply);
    const overBudget = guardBudget(state.loop, settings);

    const reason = reply.stopReason;
    switch (reason) {
      case 'end_turn':
      case 'stop_sequence': {
        const followUp = await run.nextMessage();
        if (!followUp) return run.end({ status: 'completed', guard: null, error: null, text: textOf(reply.content) });
        run.appendFollowUp(followUp);
        break;
      }
      case 'tool_use': {
        if (overBudget) return run.stopByGuard(overBudget);
        const calls = toolUseBlocks(reply.content);
        const repeated = recordRepetition(state.loop, calls);
        if (repeated) return run.stopByGuard(repeated);
        const outcomes = await run.runTools(calls, reply.needsApproval ?? []);
        run.appendToolResults(calls, outcomes);
        const answer = settings.outputSchema && submittedAnswer(settings.outputSchema, calls, outcomes);
        if (answer) {
          const text = textOf(reply.content) || JSON.stringify(answer.output);
          return run.end({ status: 'completed', guard: null, error: null, output: answer.output, text });
        }
        const streak = recordErrorStreak(state.loop, outcomes);
        if (streak) return run.stopByGuard(streak);
        break;
      }
      case 'pause_turn':
        // A server-side tool loop paused: sending the conversation back as it is lets it resume.
        if (overBudget) return run.stopByGuard(overBudget);
        break;
      case 'max_tokens':
        // The reply was cut off; a half-written tool call must never run.
        return run.stopEarly(`the reply hit max_tokens (${settings.maxOutputTokens}); raise --max-output-tokens`);
      case 'model_context_window_exceeded':
        return run.stopEarly('the conversation no longer fits in the model context window');
      case 'refusal':
        return run.stopEarly('the model declined to continue (refusal); no tool from that turn was run');
      case null:
        throw failRun(run, 'the model returned no stop_reason');
      default: {
        const unknown: never = reason;
        throw failRun(run, `unknown stop_reason ${JSON.stringify(unknown)}`);
      }
    }
  }
}

/** The model call of a turn; a failure retrying cannot fix (or retries exhausted) fails the run. (A `.catch`, not an
 * async function: one promise a turn instead of two.) */
function callModelOrFail(run: AgentRun): Promise<ModelReply> {
  return callModelCompacting(run).catch((err: unknown) => {
    if (isCancellation(err)) throw err;
    throw failRun(run, causeMessage(err), err);
  });
}

/** The MCP tool definitions, fixed before the first model call; a run that cannot have them fails. */
async function recordToolDefinitionsOrFail(run: AgentRun): Promise<void> {
  try {
    await recordToolDefinitions(run);
  } catch (err) {
    if (isCancellation(err)) throw err;
    throw failRun(run, `the MCP tool definitions could not be read: ${causeMessage(err)}`, err);
  }
}

/** Queries and updates answer from the run; each handler is one call. */
function setHandlers(run: AgentRun): void {
  setHandler(transcriptPage, (from, to) => pageOf(run.messages, from, to, TRANSCRIPT_PAGE_BYTES));
  setHandler(toolDefinitions, () => run.state.recordedTools ?? null);
  setHandler(modelSettings, (digest) => run.modelSettings.lookup(digest));
  setHandler(agentStatus, () => run.view());
  setHandler(runState, () => {
    const { messages: _paged, ...rest } = run.state; // the messages are read page by page with transcriptPage
    return rest;
  });
  setHandler(decideToolCall, (decision) => run.approvals.decide(decision), {
    validator: (decision) => run.approvals.validate(decision),
  });
  setHandler(answerElicitation, (reply) => run.elicitations.answer(reply), { validator: (reply) => run.elicitations.validate(reply) });
  setHandler(sendMessage, (text) => run.queueMessage(text), { validator: (text) => run.validateMessage(text) });
  setHandler(closeChat, () => run.closeChat());
  setHandler(subAgentReport, (report) => run.subAgents.onReport(report));
}

/** What decides whether a run continues as new before its next model call (continueAsNewDue). */
function continueAsNewInputs(run: AgentRun): Parameters<typeof continueAsNewDue>[0] {
  const info = workflowInfo();
  return {
    suggested: info.continueAsNewSuggested,
    targetVersionChanged: info.targetWorkerDeploymentVersionChanged === true,
    stepsThisRun: run.stepsThisRun,
    every: run.settings.continueAsNewAfterSteps,
  };
}

/** Continue-as-new between turns, once it is due (continueAsNewDue: the server suggests it (history size or length,
 * or a new version of the run's Worker Deployment), or the configured number of model calls is reached): the
 * transcript and guard state carry over once, the job keeps its id, and a versioned run moves to the current
 * version (see versioning.ts). */
async function continueAsNewNow(run: AgentRun): Promise<void> {
  // A webhook delivery still being retried would be abandoned with this run (an activity does not outlive its
  // workflow): the job goes on in this run, and continues as new at a later turn, once its deliveries have settled.
  if (run.webhooks.pending) {
    run.webhooks.noteContinueAsNewPostponed();
    return;
  }
  // The task is the carried transcript's first message (carried once); the rest of the input is measured with the state.
  const rest: AgentInput = { ...run.input, task: '', carried: undefined };
  const carry = () => fitForContinueAsNew(run.state, MAX_CARRIED_BYTES - utf8Bytes(JSON.stringify(rest)));
  const fits = carry();
  if (!fits) {
    // Too big to carry even trimmed: better to go on in this run, towards the history limit, than to fail.
    log.warn('The transcript is too large to carry into continue-as-new; the run goes on without it');
    return;
  }
  await condition(allHandlersFinished);
  const upgrade = await upgradeOnContinueAsNew();
  // Measured again after the waits: a handler that ran meanwhile (a closeChat, a queued message) is carried too.
  const carried = carry() ?? fits;
  if (upgrade.initialVersioningBehavior) {
    await makeContinueAsNewFunc<(input: AgentInput) => Promise<AgentResult>>(upgrade)({ ...rest, carried });
  }
  await continueAsNew<(input: AgentInput) => Promise<AgentResult>>({ ...rest, carried });
}

/** A cancelled call acknowledges with its next heartbeat (every 3 s at most); a tool that never does is left behind
 * after this long. */
const DEADLINE_SETTLE_MS = 10_000;

/** Runs the loop against a durable timer set for the absolute deadline. When the timer wins, the loop's scope is
 * cancelled and the run stops once the cancelled calls have acknowledged (at most DEADLINE_SETTLE_MS), so no
 * closed run shows a call still pending (CANCEL_REQUESTED). */
async function raceDeadline(run: AgentRun, agentLoop: () => Promise<AgentResult>): Promise<AgentResult> {
  const { deadlineAt } = run.state;
  if (deadlineAt === null) return agentLoop();
  const loopScope = new CancellationScope();
  const timerScope = new CancellationScope();
  const loopDone = loopScope.run(agentLoop);
  let loopSettled = false;
  loopDone.then(
    () => (loopSettled = true),
    () => (loopSettled = true),
  );
  const timerDone = timerScope.run(() => sleep(Math.max(1, deadlineAt - Date.now()), { summary: 'deadline' }));
  const winner = await Promise.race([loopDone.then(() => 'loop' as const), timerDone.then(() => 'deadline' as const)]);
  if (winner === 'loop') {
    timerScope.cancel();
    return loopDone;
  }
  loopScope.cancel();
  // The cancelled loop rejects; its outcome is the deadline's.
  loopDone.catch(() => undefined);
  // A sub-agent does not wait: its deadline comes just before its parent's, and the parent needs the partial
  // answer before its own deadline (the child's cancelled call stops at its next heartbeat all the same).
  if (!run.input.subAgent) await condition(() => loopSettled, DEADLINE_SETTLE_MS);
  const reason = `deadline reached (${run.settings.deadlineMs} ms after the start)`;
  run.closeOpenToolUses(`the run was stopped by the deadline guard (${reason})`);
  return run.end({ status: 'stopped', guard: 'deadline', error: reason });
}

/** The run failed (a provider error retrying cannot fix, retries exhausted, a reply the loop cannot act on).
 * The workflow fails, so the UI shows it as failed, and the failure carries the AgentResult, partial answer
 * and all, for the client. */
function failRun(run: AgentRun, error: string, cause?: unknown): ApplicationFailure {
  const agentResult = run.end({ status: 'failed', guard: null, error });
  return ApplicationFailure.create({
    message: error,
    type: AGENT_RUN_FAILED,
    nonRetryable: true,
    details: [agentResult],
    cause: cause instanceof Error ? cause : undefined,
  });
}
