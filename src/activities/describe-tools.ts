// describeTools: what a run fixes about its tools when it starts, from this worker: the MCP tool definitions it
// will use (from this worker's sessions) and the call policies of its tools (timeout, heartbeat, retry, from
// their definitions). The workflow records the result (so every later call, replay or other worker sees the
// same) and carries it through continue-as-new.
import { agentToolDefinition, agentToolName } from '../core/sub-agents.js';
import { toolAllowed } from '../core/tool-names.js';
import type { DescribeToolsInput, RecordedTools, SubAgentDefinition, ToolCallPolicy } from '../core/types.js';
import type { McpTools } from '../mcp/tools.js';
import { toolCallPolicy } from '../tools/policy.js';
import type { ToolRegistry } from '../tools/registry.js';
import { workerLacksFailure } from './model-errors.js';
import { assertFitsInHistory } from './payload-limit.js';
import { withDigest, type RecordedToolsStore } from './recorded-tools.js';

export function createDescribeTools(deps: {
  tools: ToolRegistry;
  mcp?: McpTools;
  recorded: RecordedToolsStore;
  /** The sub-agents this worker defines, by name. */
  agents?: Record<string, SubAgentDefinition>;
}) {
  return async function describeTools(input: DescribeToolsInput): Promise<RecordedTools> {
    const mcp = deps.mcp?.describe(input.tools) ?? { covers: [], definitions: [] };
    const agents = input.agents ? subAgents(input.agents, deps.agents ?? {}) : undefined;
    // A sub-agent's tool definition is recorded with the MCP ones: model calls read both by the digest.
    const withAgents = agents
      ? {
          covers: [...mcp.covers, ...Object.keys(agents).map(agentToolName)],
          definitions: [...mcp.definitions, ...Object.entries(agents).map(([name, def]) => agentToolDefinition(name, def))],
        }
      : mcp;
    const recorded = withDigest(withAgents);
    deps.recorded.remember(agents ? { ...recorded, agents } : recorded);
    const described = { ...recorded, policies: toolPolicies(deps.tools, input.tools), ...(agents ? { agents } : {}) };
    assertFitsInHistory(described, 'MCP tool definitions');
    return described;
  };
}

/** The definitions of the sub-agents a run names; one this worker lacks fails the run (retrying cannot help). */
function subAgents(names: readonly string[], defined: Record<string, SubAgentDefinition>): Record<string, SubAgentDefinition> {
  const missing = names.filter((name) => !defined[name]);
  if (missing.length > 0) {
    throw workerLacksFailure('delegates to sub-agent(s)', missing, 'define', Object.keys(defined), 'run a worker configured with them (agents)');
  }
  return Object.fromEntries(names.map((name) => [name, defined[name]]));
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
