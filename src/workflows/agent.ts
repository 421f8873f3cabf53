// The agent loop as a Temporal workflow: call the model, append the whole reply, switch on stop_reason, run
// the tools, append all results in one user message, check the guards, repeat.
// Deterministic code only: I/O happens in the activities, which this file knows by type alone.
import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  log,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { outputFromInput, SUBMIT_ANSWER } from '../core/finish-tool.js';
import {
  guardBeforeModelCall,
  guardBudget,
  guardErrorStreak,
  guardRepetition,
  recordModelCall,
  type GuardTripped,
} from '../core/guards.js';
import { TRANSCRIPT_PAGE_BYTES } from '../core/policies.js';
import { initialRunState, notRunResults, summaryRequest, type RunState } from '../core/run-state.js';
import { lastAssistantText, textOf, toolResultMessage, toolUseBlocks, transcriptPage as pageOf } from '../core/transcript.js';
import type { AgentInput, AgentResult, ModelReply, RunStatus, ToolOutcome, ToolUseBlock } from '../core/types.js';
import { scheduleModelCall, scheduleToolCall } from './activities.js';
import { transcriptPage } from './definitions.js';

type Outcome = Pick<AgentResult, 'status' | 'guard' | 'error'> & { text?: string; output?: unknown; partial?: boolean };

export async function agentWorkflow(input: AgentInput): Promise<AgentResult> {
  const { settings } = input;
  const { workflowId, runId } = workflowInfo();
  const state: RunState = initialRunState(input, Date.now());
  // Append-only: every message is stored in history once, and the model activity reads it by reference.
  const messages = state.messages;
  const loop = state.loop;

  setHandler(transcriptPage, (from, to) => pageOf(messages, from, to, TRANSCRIPT_PAGE_BYTES));

  const result = (o: Outcome): AgentResult => ({
    workflowId,
    runId,
    status: o.status,
    stopReason: state.stopReason,
    guard: o.guard,
    text: o.text ?? lastAssistantText(messages),
    partial: o.partial ?? o.status !== 'completed',
    ...(o.output !== undefined ? { output: o.output } : {}),
    steps: loop.steps,
    toolCalls: loop.toolCalls,
    usage: loop.usage,
    costUsd: loop.costUsd,
    error: o.error,
  });

  const callModel = async (toolChoiceNone = false, summary?: string): Promise<ModelReply> => {
    const reply = await scheduleModelCall(
      {
        transcript: { workflowId, runId, messageCount: messages.length },
        model: settings.model,
        maxOutputTokens: settings.maxOutputTokens,
        system: settings.system,
        tools: settings.tools,
        toolChoiceNone,
        promptCaching: settings.promptCaching,
        effort: settings.effort,
        thinkingBudget: settings.thinkingBudget,
        outputSchema: settings.outputSchema,
      },
      loop.steps + 1,
      summary,
    );
    recordModelCall(loop, reply.usage, settings);
    state.stopReason = reply.stopReason;
    messages.push({ role: 'assistant', content: reply.content });
    return reply;
  };

  const runTools = (calls: ToolUseBlock[]): Promise<ToolOutcome[]> =>
    Promise.all(
      calls.map(async (call): Promise<ToolOutcome> => {
        try {
          return await scheduleToolCall({
            workflowId,
            toolUseId: call.id,
            name: call.name,
            input: call.input,
            allowedTools: settings.outputSchema ? [...settings.tools, SUBMIT_ANSWER] : settings.tools,
            outputSchema: call.name === SUBMIT_ANSWER ? settings.outputSchema : undefined,
          });
        } catch (err) {
          // Retries exhausted: the model sees the failure and the loop goes on (the error streak bounds it).
          if (!(err instanceof ActivityFailure) || isCancellation(err)) throw err;
          return { isError: true, content: `Tool "${call.name}" failed: ${causeMessage(err)}` };
        } finally {
          loop.toolCalls++;
        }
      }),
    );

  /** A guard fired: answer any tool_use left open (the API rejects a transcript without them), then, where the
   * settings and the budget allow, one last call with tools disabled asks the model to sum up. */
  const stopByGuard = async (tripped: GuardTripped): Promise<AgentResult> => {
    log.warn(`Guard ${tripped.guard} stopped the run: ${tripped.reason}`);
    const wantSummary = settings.summaryOn.includes(tripped.guard) && guardBudget(loop, settings) === null;
    const closing = wantSummary ? summaryRequest(messages, tripped) : notRunResults(messages, tripped);
    if (closing) messages.push(closing);
    if (!wantSummary) return result({ status: 'stopped', guard: tripped.guard, error: tripped.reason });
    try {
      const reply = await callModel(true, `summary after ${tripped.guard}`);
      const text = textOf(reply.content);
      if (text) return result({ status: 'stopped', guard: tripped.guard, error: tripped.reason, text });
    } catch (err) {
      if (isCancellation(err)) throw err;
      log.warn(`The summary call failed; the partial answer is the last assistant text: ${causeMessage(err)}`);
    }
    return result({ status: 'stopped', guard: tripped.guard, error: tripped.reason });
  };

  const agentLoop = async (): Promise<AgentResult> => {
    for (;;) {
      const before = guardBeforeModelCall(loop, settings);
      if (before) return stopByGuard(before);

      let reply: ModelReply;
      try {
        reply = await callModel();
      } catch (err) {
        if (isCancellation(err)) throw err;
        throw failRun(err, result({ status: 'failed', guard: null, error: causeMessage(err) }));
      }
      const overBudget = guardBudget(loop, settings);

      const reason = reply.stopReason;
      switch (reason) {
        case 'end_turn':
        case 'stop_sequence':
          return result({ status: 'completed', guard: null, error: null, text: textOf(reply.content) });
        case 'tool_use': {
          if (overBudget) return stopByGuard(overBudget);
          const calls = toolUseBlocks(reply.content);
          const repeated = guardRepetition(loop, calls);
          if (repeated) return stopByGuard(repeated);
          const outcomes = await runTools(calls);
          messages.push(toolResultMessage(calls, outcomes));
          const submitted = calls.findIndex((c, i) => c.name === SUBMIT_ANSWER && !outcomes[i].isError);
          if (submitted >= 0 && settings.outputSchema) {
            const output = outputFromInput(settings.outputSchema, calls[submitted].input);
            const text = textOf(reply.content) || JSON.stringify(output);
            return result({ status: 'completed', guard: null, error: null, output, text });
          }
          const streak = guardErrorStreak(loop, outcomes);
          if (streak) return stopByGuard(streak);
          break;
        }
        case 'pause_turn':
          // A server-side tool loop paused: sending the conversation back as it is lets it resume.
          if (overBudget) return stopByGuard(overBudget);
          break;
        case 'max_tokens':
          // The reply was cut off; a half-written tool call must never run.
          return stopEarly(`the reply hit max_tokens (${settings.maxOutputTokens}); raise --max-output-tokens`);
        case 'model_context_window_exceeded':
          return stopEarly('the conversation no longer fits in the model context window');
        case 'refusal':
          return stopEarly('the model declined to continue (refusal); no tool from that turn was run');
        case null:
          throw failRun(null, result({ status: 'failed', guard: null, error: 'the model returned no stop_reason' }));
        default: {
          const unknown: never = reason;
          const error = `unknown stop_reason ${JSON.stringify(unknown)}`;
          throw failRun(null, result({ status: 'failed', guard: null, error }));
        }
      }
    }
  };
  const stopEarly = (why: string): AgentResult => result({ status: 'stopped', guard: null, error: why });

  return raceDeadline(state, agentLoop, () => {
    const tripped: GuardTripped = { guard: 'deadline', reason: `deadline reached (${settings.deadlineMs} ms after the start)` };
    log.warn(`Guard deadline stopped the run: ${tripped.reason}`);
    const closing = notRunResults(messages, tripped);
    if (closing) messages.push(closing);
    return result({ status: 'stopped', guard: 'deadline', error: tripped.reason });
  });
}

/** Runs the loop against a durable timer set for the absolute deadline. When the timer wins, the loop's
 * scope is cancelled: in-flight activities are abandoned (TRY_CANCEL), so the run stops within seconds. */
async function raceDeadline(
  state: RunState,
  agentLoop: () => Promise<AgentResult>,
  onDeadline: () => AgentResult,
): Promise<AgentResult> {
  if (state.deadlineAt === null) return agentLoop();
  const loopScope = new CancellationScope();
  const timerScope = new CancellationScope();
  const loopDone = loopScope.run(agentLoop);
  const timerDone = timerScope.run(() => sleep(Math.max(1, state.deadlineAt! - Date.now()), { summary: 'deadline' }));
  const winner = await Promise.race([loopDone.then(() => 'loop' as const), timerDone.then(() => 'deadline' as const)]);
  if (winner === 'loop') {
    timerScope.cancel();
    return loopDone;
  }
  loopScope.cancel();
  // The cancelled loop rejects; its outcome is the deadline's.
  loopDone.catch(() => undefined);
  return onDeadline();
}

function causeMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
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

export type { RunStatus };
