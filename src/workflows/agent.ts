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
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { outputFromInput, SUBMIT_ANSWER } from '../core/finish-tool.js';
import { guardBeforeModelCall, guardBudget, recordErrorStreak, recordRepetition } from '../core/guards.js';
import { TRANSCRIPT_PAGE_BYTES } from '../core/policies.js';
import { fitForContinueAsNew, withFollowUps } from '../core/run-state.js';
import { textOf, toolResultMessage, toolUseBlocks, transcriptPage as pageOf } from '../core/transcript.js';
import type { AgentInput, AgentResult, ModelReply } from '../core/types.js';
import { agentStatus, closeChat, decideToolCall, runState, sendMessage, transcriptPage } from './definitions.js';
import { AgentRun, causeMessage } from './run.js';

/** An open chat run waits this long for the next message before it ends, unless the settings say otherwise. */
const DEFAULT_IDLE_TIMEOUT_MS = 60 * 60 * 1000;

export async function agentWorkflow(input: AgentInput): Promise<AgentResult> {
  const run = new AgentRun(input);
  const { settings, state } = run;

  setHandler(transcriptPage, (from, to) => pageOf(run.messages, from, to, TRANSCRIPT_PAGE_BYTES));
  setHandler(agentStatus, () => run.view());
  setHandler(runState, () => {
    const { messages: _paged, ...rest } = state; // the messages are read page by page with transcriptPage
    return rest;
  });
  setHandler(decideToolCall, (decision) => run.decide(decision), {
    validator: (decision) => run.validateDecision(decision),
  });
  setHandler(sendMessage, (text) => ({ queued: state.pendingMessages.push(text) }), {
    validator: (text) => {
      if (typeof text !== 'string' || !text.trim()) throw new Error('the message is empty');
      if (state.chatClosed) throw new Error('this chat run has been closed');
      if (run.finishing) throw new Error('the run is finishing: it will not read another message');
    },
  });
  setHandler(closeChat, () => void (state.chatClosed = true));
  run.publish();

  const agentLoop = async (): Promise<AgentResult> => {
    for (;;) {
      await continueAsNewIfDue(run);
      const before = guardBeforeModelCall(state.loop, settings);
      if (before) return run.stopByGuard(before);

      let reply: ModelReply;
      try {
        reply = await run.callModel();
      } catch (err) {
        if (isCancellation(err)) throw err;
        throw failRun(err, run.result({ status: 'failed', guard: null, error: causeMessage(err) }));
      }
      const overBudget = guardBudget(state.loop, settings);

      const reason = reply.stopReason;
      switch (reason) {
        case 'end_turn':
        case 'stop_sequence': {
          if (await nextMessage(run)) break;
          return run.result({ status: 'completed', guard: null, error: null, text: textOf(reply.content) });
        }
        case 'tool_use': {
          if (overBudget) return run.stopByGuard(overBudget);
          const calls = toolUseBlocks(reply.content);
          const repeated = recordRepetition(state.loop, calls);
          if (repeated) return run.stopByGuard(repeated);
          const outcomes = await run.runTools(calls, reply.needsApproval ?? []);
          // ONE user message: every result, in tool_use order, then any follow-up sent meanwhile.
          run.messages.push(withFollowUps(toolResultMessage(calls, outcomes), state.pendingMessages.splice(0))!);
          const submitted = calls.findIndex((c, i) => c.name === SUBMIT_ANSWER && !outcomes[i].isError);
          if (submitted >= 0 && settings.outputSchema) {
            const output = outputFromInput(settings.outputSchema, calls[submitted].input);
            const text = textOf(reply.content) || JSON.stringify(output);
            return run.result({ status: 'completed', guard: null, error: null, output, text });
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
          return stopEarly(`the reply hit max_tokens (${settings.maxOutputTokens}); raise --max-output-tokens`);
        case 'model_context_window_exceeded':
          return stopEarly('the conversation no longer fits in the model context window');
        case 'refusal':
          return stopEarly('the model declined to continue (refusal); no tool from that turn was run');
        case null:
          throw failRun(null, run.result({ status: 'failed', guard: null, error: 'the model returned no stop_reason' }));
        default: {
          const unknown: never = reason;
          const error = `unknown stop_reason ${JSON.stringify(unknown)}`;
          throw failRun(null, run.result({ status: 'failed', guard: null, error }));
        }
      }
    }
  };
  const stopEarly = (why: string): AgentResult => {
    run.closeOpenToolUses(`the run stopped: ${why}`);
    return run.result({ status: 'stopped', guard: null, error: why });
  };

  try {
    return await raceDeadline(run, agentLoop);
  } catch (err) {
    if (!isCancellation(err)) throw err;
    // Cancelled by a user: the partial answer is what the agent had said so far.
    run.closeOpenToolUses('the run was cancelled');
    return run.result({ status: 'cancelled', guard: null, error: null });
  }
}

/** After end_turn: a follow-up sent meanwhile, or (in a chat run) the next message, continues the
 * conversation. Returns false when the run should end. */
async function nextMessage(run: AgentRun): Promise<boolean> {
  const { state, settings } = run;
  if (state.pendingMessages.length === 0 && settings.chat && !state.chatClosed) {
    run.waitingForMessage = true;
    run.publish();
    await condition(() => state.pendingMessages.length > 0 || state.chatClosed, settings.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS);
    run.waitingForMessage = false;
  }
  const followUp = withFollowUps(null, state.pendingMessages.splice(0));
  if (!followUp) return false;
  run.messages.push(followUp);
  return true;
}

/** Continue-as-new between turns when the server suggests it (history size or length), or after the
 * configured number of model calls: the transcript and guard state carry over once, the job keeps its id. */
async function continueAsNewIfDue(run: AgentRun): Promise<void> {
  const every = run.settings.continueAsNewAfterSteps;
  const due = workflowInfo().continueAsNewSuggested || (every !== undefined && run.stepsThisRun >= every);
  if (!due || run.stepsThisRun === 0) return;
  const carried = fitForContinueAsNew(run.state);
  if (!carried) {
    // Too big to carry even trimmed: better to go on in this run, towards the history limit, than to fail.
    log.warn('The transcript is too large to carry into continue-as-new; the run goes on without it');
    return;
  }
  await condition(allHandlersFinished);
  await continueAsNew<(input: AgentInput) => Promise<AgentResult>>({ ...run.input, carried });
}

/** Runs the loop against a durable timer set for the absolute deadline. When the timer wins, the loop's
 * scope is cancelled: in-flight activities are abandoned (TRY_CANCEL), so the run stops within seconds. */
async function raceDeadline(run: AgentRun, agentLoop: () => Promise<AgentResult>): Promise<AgentResult> {
  const { deadlineAt } = run.state;
  if (deadlineAt === null) return agentLoop();
  const loopScope = new CancellationScope();
  const timerScope = new CancellationScope();
  const loopDone = loopScope.run(agentLoop);
  const timerDone = timerScope.run(() => sleep(Math.max(1, deadlineAt - Date.now()), { summary: 'deadline' }));
  const winner = await Promise.race([loopDone.then(() => 'loop' as const), timerDone.then(() => 'deadline' as const)]);
  if (winner === 'loop') {
    timerScope.cancel();
    return loopDone;
  }
  loopScope.cancel();
  // The cancelled loop rejects; its outcome is the deadline's.
  loopDone.catch(() => undefined);
  const reason = `deadline reached (${run.settings.deadlineMs} ms after the start)`;
  run.guard = 'deadline';
  run.closeOpenToolUses(`the run was stopped by the deadline guard (${reason})`);
  return run.result({ status: 'stopped', guard: 'deadline', error: reason });
}

/** The run failed (a provider error retrying cannot fix, or retries exhausted). The workflow fails, so the UI
 * shows it as failed, and the failure carries the AgentResult, partial answer and all, for the client. */
function failRun(err: unknown, agentResult: AgentResult): ApplicationFailure {
  return ApplicationFailure.create({
    message: agentResult.error ?? 'the run failed',
    type: 'AgentRunFailed',
    nonRetryable: true,
    details: [agentResult],
    cause: err instanceof Error ? err : undefined,
  });
}
