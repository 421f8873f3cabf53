// runTool: one tool call. Validation, unknown tools and tool-reported errors come back as error results the
// model can act on; anything else thrown is an infrastructure failure that Temporal retries. A call's progress
// rides in its heartbeats; a call its tool completes later ends the activity as async-completed.
import { CompleteAsyncError, Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { DEFAULT_MAX_TOOL_OUTPUT_CHARS } from '../core/policies.js';
import type { ToolCallInput, ToolCallProgress, ToolOutcome } from '../core/types.js';
import { executeTool } from '../tools/execute.js';
import type { ToolRegistry } from '../tools/registry.js';
import { submitAnswerTool } from '../core/finish-tool.js';
import { isCompleteLater, isNeedsInput, type AnyAgentTool, type ToolContext } from '../tools/types.js';
import { encodeCompletionToken } from './completion-token.js';
import { startHeartbeat } from './heartbeat.js';
import { assertFitsInHistory, limitToolOutput } from './payload-limit.js';
import { observeToolCall, type ActivityTelemetry } from '../observability/activity-telemetry.js';

export function createRunTool(deps: { tools: ToolRegistry; telemetry?: ActivityTelemetry; encrypts?: boolean }) {
  return (input: ToolCallInput): Promise<ToolOutcome> => observeToolCall(deps.telemetry, input, () => runTool(input));

  async function runTool(input: ToolCallInput): Promise<ToolOutcome> {
    const ctx = Context.current();
    // An MCP task an earlier attempt started is in its last heartbeat: this attempt resumes it (and keeps it).
    const earlier = (ctx.info.heartbeatDetails as ToolCallProgress | undefined)?.mcpTaskId;
    const progress: ToolCallProgress = { toolUseId: input.toolUseId, ...(typeof earlier === 'string' ? { mcpTaskId: earlier } : {}) };
    const stopHeartbeat = startHeartbeat(ctx, () => progress);
    // The finish tool lives with the run (its schema is in the run's settings), not in the worker's registry.
    const registry = input.outputSchema ? withTool(deps.tools, submitAnswerTool(input.outputSchema)) : deps.tools;
    try {
      const running = executeTool(registry, { name: input.name, input: input.input, allowedTools: input.allowedTools }, toolContext(ctx, input, progress, deps.encrypts === true));
      // A cancelled call ends now, as cancelled, even if the tool does not stop at its signal: the workflow
      // waits for this acknowledgement before it closes the run.
      running.catch(() => undefined); // a tool failing after the cancel has nobody left to tell
      const outcome = await Promise.race([running, ctx.cancelled]);
      const limited = { ...outcome, content: limitToolOutput(outcome.content, input.maxOutputChars ?? DEFAULT_MAX_TOOL_OUTPUT_CHARS) };
      assertFitsInHistory(limited, `result of tool "${input.name}"`);
      return limited;
    } catch (err) {
      // A question for a person (an MCP elicitation): the run holds it and makes the call again with the answer.
      if (isNeedsInput(err) && input.elicitation) {
        const { question } = err;
        return { isError: false, content: '', question: { ...question, id: `${input.toolUseId}/${question.index + 1}`, toolUseId: input.toolUseId } };
      }
      if (isCompleteLater(err)) completeLater(ctx, registry.get(input.name), progress);
      throw err;
    } finally {
      stopHeartbeat();
    }
  }
}

function toolContext(ctx: Context, input: ToolCallInput, progress: ToolCallProgress, encrypted: boolean): ToolContext {
  return {
    workflowId: input.workflowId,
    toolUseId: input.toolUseId,
    idempotencyKey: `${input.workflowId}/${input.toolUseId}`,
    signal: ctx.cancellationSignal,
    attempt: ctx.info.attempt,
    // Start to close counts from this attempt's start, which is now, give or take the activity's first steps.
    ...(ctx.info.startToCloseTimeoutMs > 0 ? { deadline: Date.now() + ctx.info.startToCloseTimeoutMs } : {}),
    progress(message, fraction) {
      progress.message = String(message).slice(0, PROGRESS_MESSAGE_CHARS);
      if (typeof fraction === 'number' && Number.isFinite(fraction)) progress.fraction = Math.min(1, Math.max(0, fraction));
      else delete progress.fraction;
      progress.reportedAt = Date.now();
      ctx.heartbeat(progress); // the SDK sends at most one heartbeat per throttle interval, the latest details
    },
    get completionToken() {
      const { workflowExecution, activityId, taskToken, activityNamespace } = ctx.info;
      return encodeCompletionToken({
        workflowId: input.workflowId,
        runId: workflowExecution?.runId ?? '',
        activityId,
        toolUseId: input.toolUseId,
        taskToken,
        namespace: activityNamespace,
        ...(encrypted ? { encrypted } : {}),
        ...(input.maxOutputChars !== undefined ? { maxOutputChars: input.maxOutputChars } : {}),
      });
    },
    completeLater(): never {
      throw new CompleteLater();
    },
    ...(input.elicitation ? { elicitation: input.elicitation } : {}),
    mcpTask: {
      ...(progress.mcpTaskId ? { resume: progress.mcpTaskId } : {}),
      started(taskId) {
        progress.mcpTaskId = taskId;
        ctx.heartbeat(progress);
      },
    },
  };
}

/** A progress message longer than this is cut: it rides in every heartbeat. */
const PROGRESS_MESSAGE_CHARS = 500;

/** Thrown by `context.completeLater()`: the activity ends as async-completed (see completeLater below). */
class CompleteLater extends Error {
  override name = 'CompleteLater';
  constructor() {
    super('context.completeLater() was called');
  }
}

/** The call waits for `complete-tool`: the last heartbeat says since when (status shows it), and the activity ends
 * without a result, holding no slot. Only a tool that declared it may: its calls were scheduled without a
 * heartbeat timeout, which would otherwise fail the waiting call seconds later. */
function completeLater(ctx: Context, tool: AnyAgentTool | undefined, progress: ToolCallProgress): never {
  if (!tool?.completesLater) {
    throw ApplicationFailure.nonRetryable(
      `Tool "${tool?.name ?? '?'}" called context.completeLater(), but its definition does not set completesLater: true ` +
        '(add it: such calls are scheduled without a heartbeat timeout)',
      'CompleteLaterNotDeclared',
    );
  }
  progress.waitingSince = Date.now();
  ctx.heartbeat(progress);
  throw new CompleteAsyncError();
}

function withTool(registry: ToolRegistry, tool: AnyAgentTool): ToolRegistry {
  return {
    get: (name) => (name === tool.name ? tool : registry.get(name)),
    names: () => [...registry.names(), tool.name],
    definitions: (names) => registry.definitions(names),
  };
}
