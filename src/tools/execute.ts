// Runs one tool call and turns every answer the model should see into a ToolOutcome. Only failures that
// are not the model's business (anything but ToolError) escape, so the activity layer can retry them.
import { toolAllowed } from '../core/tool-names.js';
import type { ToolCallInput, ToolOutcome } from '../core/types.js';
import type { ToolRegistry } from './registry.js';
import { ToolError, type ToolContext } from './types.js';
import { validateToolInput } from './validate.js';

export async function executeTool(
  registry: ToolRegistry,
  call: Pick<ToolCallInput, 'name' | 'input' | 'allowedTools'>,
  context: ToolContext,
): Promise<ToolOutcome> {
  const tool = toolAllowed(call.name, call.allowedTools) ? registry.get(call.name) : undefined;
  if (!tool) {
    // Lists only what this run may call, so the model is never pointed at a tool it would be refused.
    const available = registry.names().filter((name) => toolAllowed(name, call.allowedTools));
    return {
      isError: true,
      content: `Unknown tool "${call.name}". Available tools: ${available.join(', ') || '(none)'}`,
    };
  }

  const problem = validateToolInput(tool, call.input);
  if (problem) return { isError: true, content: problem };

  let result: unknown;
  try {
    result = await tool.execute(call.input, context);
  } catch (error) {
    // By name too: a config file's tools may import ToolError from another copy of this package.
    if (error instanceof ToolError || (error instanceof Error && error.name === 'ToolError')) {
      const content = (error as ToolError).content;
      if (Array.isArray(content) && content.length > 0) return { isError: true, content };
      return { isError: true, content: error.message || `Tool "${tool.name}" failed without a message` };
    }
    throw error;
  }
  // Guards against plain-JS tools or `any` leaks; a bug in the tool, not something the model can fix.
  if (typeof result !== 'string' && !Array.isArray(result)) {
    throw new TypeError(`Tool "${tool.name}" returned ${typeof result} instead of a string or content blocks`);
  }
  // Passed on, but visibly: an empty tool_result reads to the model as if the call did not happen.
  return { isError: false, content: result.length === 0 ? '(empty result)' : result };
}
