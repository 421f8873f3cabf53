// The agent loop as a Temporal workflow: call the model, append the whole reply, switch on stop_reason, run
// the tools, append all results in one user message, check the guards, repeat.
// Deterministic code only: I/O happens in the activities, which this file knows by type alone.
import {
  ActivityFailure,
  ApplicationFailure,
  log,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import { guardBeforeModelCall, type GuardTripped, type LoopState } from '../core/guards.js';
import { MODEL_CALL_OPTIONS, TOOL_CALL_OPTIONS, TRANSCRIPT_PAGE_BYTES } from '../core/policies.js';
import {
  addUsage,
  lastAssistantText,
  oneLine,
  textOf,
  toolResultMessage,
  toolUseBlocks,
  transcriptPage as pageOf,
  ZERO_USAGE,
} from '../core/transcript.js';
import type {
  AgentInput,
  AgentResult,
  MessageParam,
  ModelReply,
  StopReason,
  ToolOutcome,
  ToolUseBlock,
} from '../core/types.js';
import { transcriptPage } from './definitions.js';

const { callModel, runTool } = proxyActivities<ReturnType<typeof createActivities>>(MODEL_CALL_OPTIONS);

export async function agentWorkflow(input: AgentInput): Promise<AgentResult> {
  const { settings } = input;
  const { workflowId, runId } = workflowInfo();
  // Append-only: every message is stored in history once, and the model activity reads it by reference.
  const messages: MessageParam[] = [{ role: 'user', content: input.task }];
  const state: LoopState = { steps: 0, toolCalls: 0, usage: { ...ZERO_USAGE } };
  let stopReason: StopReason | null = null;

  setHandler(transcriptPage, (from, to) => pageOf(messages, from, to, TRANSCRIPT_PAGE_BYTES));

  const finish = (outcome: Pick<AgentResult, 'status' | 'guard' | 'error'> & { text?: string }): AgentResult => ({
    workflowId,
    runId,
    stopReason,
    steps: state.steps,
    toolCalls: state.toolCalls,
    usage: state.usage,
    text: outcome.text ?? lastAssistantText(messages),
    status: outcome.status,
    guard: outcome.guard,
    error: outcome.error,
  });
  const stopByGuard = (tripped: GuardTripped): AgentResult => {
    log.warn(`Guard ${tripped.guard} stopped the run: ${tripped.reason}`);
    return finish({ status: 'stopped', guard: tripped.guard, error: null });
  };
  const stopEarly = (why: string): AgentResult => finish({ status: 'stopped', guard: null, error: why });

  for (;;) {
    const tripped = guardBeforeModelCall(state, settings);
    if (tripped) return stopByGuard(tripped);

    let reply: ModelReply;
    try {
      reply = await callModel.executeWithOptions(
        { ...MODEL_CALL_OPTIONS, summary: `model #${state.steps + 1} · ${messages.length} messages` },
        [
          {
            transcript: { workflowId, runId, messageCount: messages.length },
            model: settings.model,
            maxOutputTokens: settings.maxOutputTokens,
            system: settings.system,
            tools: settings.tools,
          },
        ],
      );
    } catch (err) {
      throw failRun(err, finish);
    }
    state.steps++;
    state.usage = addUsage(state.usage, reply.usage);
    stopReason = reply.stopReason;
    messages.push({ role: 'assistant', content: reply.content });

    const reason = reply.stopReason;
    switch (reason) {
      case 'end_turn':
      case 'stop_sequence':
        return finish({ status: 'completed', guard: null, error: null, text: textOf(reply.content) });
      case 'tool_use': {
        const calls = toolUseBlocks(reply.content);
        const outcomes = await Promise.all(calls.map((call) => runOneTool(call, workflowId, settings.tools)));
        state.toolCalls += calls.length;
        messages.push(toolResultMessage(calls, outcomes));
        break;
      }
      case 'pause_turn':
        // A server-side tool loop paused: sending the conversation back as it is lets it resume.
        break;
      case 'max_tokens':
        // The reply was cut off; a half-written tool call must never run.
        return stopEarly(`the reply hit max_tokens (${settings.maxOutputTokens}); raise --max-output-tokens`);
      case 'model_context_window_exceeded':
        return stopEarly('the conversation no longer fits in the model context window');
      case 'refusal':
        return stopEarly('the model declined to continue (refusal); no tool from that turn was run');
      case null:
        throw failRun(new Error('the model returned no stop_reason'), finish);
      default: {
        const unknown: never = reason;
        throw failRun(new Error(`unknown stop_reason ${JSON.stringify(unknown)}`), finish);
      }
    }
  }
}

/** One tool call as its own activity. An activity that still fails after its retries becomes an error
 * result the model can see, so the loop goes on (the error-streak guard bounds how long). */
async function runOneTool(call: ToolUseBlock, workflowId: string, allowedTools: string[]): Promise<ToolOutcome> {
  try {
    return await runTool.executeWithOptions(
      { ...TOOL_CALL_OPTIONS, summary: oneLine(`${call.name}(${argsPreview(call.input)})`, 200) },
      [{ workflowId, toolUseId: call.id, name: call.name, input: call.input, allowedTools }],
    );
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
    return { isError: true, content: `Tool "${call.name}" failed: ${causeMessage(err)}` };
  }
}

/** `web_search("population of France")` rather than `web_search({"query":"population of France"})`. */
function argsPreview(input: unknown): string {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const values = Object.values(input);
    if (values.length === 1) return JSON.stringify(values[0]);
  }
  return JSON.stringify(input);
}

function causeMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}

/** The run failed (a provider error that retrying cannot fix, or retries exhausted). The workflow fails, so
 * the UI shows it as failed, and the failure carries the AgentResult for the client. */
function failRun(
  err: unknown,
  finish: (o: Pick<AgentResult, 'status' | 'guard' | 'error'>) => AgentResult,
): ApplicationFailure {
  const message = causeMessage(err);
  return ApplicationFailure.create({
    message,
    type: 'AgentRunFailed',
    nonRetryable: true,
    details: [finish({ status: 'failed', guard: null, error: message })],
    cause: err instanceof Error ? err : undefined,
  });
}
