// runTool: one tool call. Validation, unknown tools and tool-reported errors come back as error results the
// model can act on; anything else thrown is an infrastructure failure that Temporal retries.
import { Context } from '@temporalio/activity';
import { DEFAULT_MAX_TOOL_OUTPUT_CHARS } from '../core/policies.js';
import { startHeartbeat } from './heartbeat.js';
import type { ToolCallInput, ToolOutcome } from '../core/types.js';
import { executeTool } from '../tools/execute.js';
import type { ToolRegistry } from '../tools/registry.js';
import { submitAnswerTool } from '../core/finish-tool.js';
import type { AnyAgentTool } from '../tools/types.js';
import { assertFitsInHistory, limitToolOutput } from './payload-limit.js';

export function createRunTool(deps: { tools: ToolRegistry }) {
  return async function runTool(input: ToolCallInput): Promise<ToolOutcome> {
    const ctx = Context.current();
    const stopHeartbeat = startHeartbeat(ctx);
    try {
      // The finish tool lives with the run (its schema is in the run's settings), not in the worker's registry.
      const registry = input.outputSchema ? withTool(deps.tools, submitAnswerTool(input.outputSchema)) : deps.tools;
      const running = executeTool(
        registry,
        { name: input.name, input: input.input, allowedTools: input.allowedTools },
        {
          workflowId: input.workflowId,
          toolUseId: input.toolUseId,
          idempotencyKey: `${input.workflowId}/${input.toolUseId}`,
          signal: ctx.cancellationSignal,
        },
      );
      // A cancelled call ends now, as cancelled, even if the tool does not stop at its signal: the workflow
      // waits for this acknowledgement before it closes the run.
      running.catch(() => undefined); // a tool failing after the cancel has nobody left to tell
      const outcome = await Promise.race([running, ctx.cancelled]);
      const limited = { ...outcome, content: limitToolOutput(outcome.content, input.maxOutputChars ?? DEFAULT_MAX_TOOL_OUTPUT_CHARS) };
      assertFitsInHistory(limited, `result of tool "${input.name}"`);
      return limited;
    } finally {
      stopHeartbeat();
    }
  };
}

function withTool(registry: ToolRegistry, tool: AnyAgentTool): ToolRegistry {
  return {
    get: (name) => (name === tool.name ? tool : registry.get(name)),
    names: () => [...registry.names(), tool.name],
    definitions: (names) => registry.definitions(names),
  };
}
