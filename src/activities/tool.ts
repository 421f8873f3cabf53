// runTool: one tool call. Validation, unknown tools and tool-reported errors come back as error results the
// model can act on; anything else thrown is an infrastructure failure that Temporal retries.
import { Context } from '@temporalio/activity';
import { HEARTBEAT_INTERVAL_MS } from '../core/policies.js';
import type { ToolCallInput, ToolOutcome } from '../core/types.js';
import { executeTool } from '../tools/execute.js';
import type { ToolRegistry } from '../tools/registry.js';

export function createRunTool(deps: { tools: ToolRegistry }) {
  return async function runTool(input: ToolCallInput): Promise<ToolOutcome> {
    const ctx = Context.current();
    const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_INTERVAL_MS);
    try {
      return await executeTool(
        deps.tools,
        { name: input.name, input: input.input, allowedTools: input.allowedTools },
        {
          workflowId: input.workflowId,
          toolUseId: input.toolUseId,
          idempotencyKey: `${input.workflowId}/${input.toolUseId}`,
          signal: ctx.cancellationSignal,
        },
      );
    } finally {
      clearInterval(beat);
    }
  };
}
