// The tools a worker can run, looked up by name. The workflow carries only tool names; the worker resolves
// them here, so a tool's code can change without touching running workflows' history.
import { kindOf } from '../core/is-object.js';
import { agentNameOf, isAgentTool } from '../core/sub-agents.js';
import { API_TOOL_NAME } from '../core/tool-names.js';
import type { Tool } from '@anthropic-ai/sdk/resources/messages';
import { calculator } from './calculator.js';
import { toolCallPolicy } from './policy.js';
import { toolShapeProblem } from './shape.js';
import type { AnyAgentTool } from './types.js';
import { checkToolSchema } from './validate.js';
import { webSearch } from './web-search.js';

/** Every tool the worker offers. Adding a tool: write its file, then add it here. */
export const builtinTools: AnyAgentTool[] = [calculator, webSearch];

export interface ToolRegistry {
  get(name: string): AnyAgentTool | undefined;
  /** Names of all registered tools, in registration order. */
  names(): string[];
  /** The API's tool definitions for `names`, in that order. Throws on a name that is not registered. */
  definitions(names: string[]): Tool[];
}

export function createToolRegistry(tools: AnyAgentTool[] = builtinTools): ToolRegistry {
  const byName = new Map<string, AnyAgentTool>();
  if (!Array.isArray(tools)) throw new Error(`tools must be an array of tools (got ${kindOf(tools)})`);
  for (const [i, tool] of tools.entries()) {
    const shape = toolShapeProblem(tool, `tools[${i}]`);
    if (shape) throw new Error(shape);
    // The Messages API's rule for tool names: checked here, a 400 on the first model call is a startup error naming the tool.
    if (!API_TOOL_NAME.test(tool.name)) {
      throw new Error(`Invalid tool name "${tool.name}": use 1 to 64 letters, digits, "_" or "-"`);
    }
    // A run's `agent__<name>` is a sub-agent: a tool of that name would be taken for one (and the run fail, naming a
    // sub-agent the worker does not define).
    if (isAgentTool(tool.name)) {
      throw new Error(`Invalid tool name "${tool.name}": agent__<name> are the sub-agents' tools; rename the tool (or define a sub-agent "${agentNameOf(tool.name)}" under agents)`);
    }
    if (byName.has(tool.name)) throw new Error(`Duplicate tool name "${tool.name}": tool names must be unique`);
    const schemaProblem = checkToolSchema(tool);
    if (schemaProblem) throw new Error(schemaProblem);
    toolCallPolicy(tool.name, tool); // a bad timeout or retry is a startup error, never a failed call
    byName.set(tool.name, tool);
  }

  return {
    get: (name) => byName.get(name),
    names: () => [...byName.keys()],
    definitions(names) {
      return names.map((name) => {
        const tool = byName.get(name);
        if (!tool) {
          throw new Error(`Unknown tool "${name}". Available tools: ${[...byName.keys()].join(', ') || '(none)'}`);
        }
        return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
      });
    },
  };
}
