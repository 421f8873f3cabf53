// describeTools: what a run fixes about its tools when it starts, from this worker: the MCP tool definitions it
// will use (from this worker's sessions) and the call policies of its tools (timeout, heartbeat, retry, from
// their definitions). The workflow records the result (so every later call, replay or other worker sees the
// same) and carries it through continue-as-new.
import { toolAllowed } from '../core/tool-names.js';
import type { DescribeToolsInput, RecordedTools, ToolCallPolicy } from '../core/types.js';
import type { McpTools } from '../mcp/tools.js';
import { toolCallPolicy } from '../tools/policy.js';
import type { ToolRegistry } from '../tools/registry.js';
import { assertFitsInHistory } from './payload-limit.js';
import { withDigest, type RecordedToolsStore } from './recorded-tools.js';

export function createDescribeTools(deps: { tools: ToolRegistry; mcp?: McpTools; recorded: RecordedToolsStore }) {
  return async function describeTools(input: DescribeToolsInput): Promise<RecordedTools> {
    const recorded = withDigest(deps.mcp?.describe(input.tools) ?? { covers: [], definitions: [] });
    deps.recorded.remember(recorded);
    const described = input.policies ? { ...recorded, policies: toolPolicies(deps.tools, input.tools) } : recorded;
    assertFitsInHistory(described, 'MCP tool definitions');
    return described;
  };
}

/** The policies of the tools `names` allows (exact names and `<server>__*`) that set one. */
function toolPolicies(registry: ToolRegistry, names: readonly string[]): Record<string, ToolCallPolicy> {
  const policies: Record<string, ToolCallPolicy> = {};
  for (const name of registry.names()) {
    if (!toolAllowed(name, names)) continue;
    const tool = registry.get(name);
    const policy = tool && toolCallPolicy(name, tool);
    if (policy) policies[name] = policy;
  }
  return policies;
}
