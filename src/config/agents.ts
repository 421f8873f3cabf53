// The `agents` of a config file (or of AgentPlugin): named sub-agents, checked when the config is loaded, and turned
// into the definitions a worker records for the runs that delegate to them. Every way one can be wrong is a
// one-line message naming the agent (the CLI turns it into exit code 2).
import { EFFORTS, type SubAgentDefinition } from '../core/types.js';
import { AGENT_NAME, agentsIn, agentToolName, DEFAULT_MAX_AGENT_DEPTH, delegationDepth, isAgentTool } from '../core/sub-agents.js';
import { durationMs } from '../tools/policy.js';
import { validateJsonSchema } from '../tools/validate.js';
import { priorityProblem } from '../core/settings-check.js';
import type { SubAgentConfig } from './types.js';

const AGENT_KEYS = ['description', 'system', 'tools', 'model', 'maxSteps', 'maxOutputTokens', 'budgetTokens', 'budgetUsd', 'deadline', 'outputSchema', 'effort', 'inputSchema', 'priority'];

/** Checks `agents` against the tools a worker has (`isKnownTool`: the built-ins, the config's, MCP servers') and
 * the depth limit; throws an Error with a one-line message. */
export function checkAgents(
  agents: unknown,
  isKnownTool: (name: string) => boolean,
  maxDepth: number = DEFAULT_MAX_AGENT_DEPTH,
): Record<string, SubAgentConfig> {
  if (!isObject(agents)) throw new Error(`agents must be an object of sub-agents by name (got ${Array.isArray(agents) ? 'an array' : typeof agents})`);
  for (const [name, agent] of Object.entries(agents)) {
    if (!AGENT_NAME.test(name) || name.includes('__')) {
      throw new Error(
        `agent name "${name}" is not a valid tool name: its tool ${agentToolName(name)} must be letters, digits, "_" or "-" (at most 64 characters), without "__" in the name`,
      );
    }
    const where = `agents.${name}`;
    if (!isObject(agent)) throw new Error(`${where} must be an object with at least a description`);
    const unknownKeys = Object.keys(agent).filter((k) => !AGENT_KEYS.includes(k));
    if (unknownKeys.length > 0) throw new Error(`${where}: unknown key ${unknownKeys.map((k) => `"${k}"`).join(', ')} (expected ${AGENT_KEYS.join(', ')})`);
    if (typeof agent.description !== 'string' || !agent.description.trim()) {
      throw new Error(`${where}.description must be a non-empty string: the model reads it to decide when to delegate`);
    }
    for (const key of ['system', 'model'] as const) {
      if (agent[key] !== undefined && typeof agent[key] !== 'string') throw new Error(`${where}.${key} must be a string`);
    }
    for (const key of ['maxSteps', 'maxOutputTokens', 'budgetTokens'] as const) {
      const v = agent[key];
      if (v !== undefined && !(Number.isInteger(v) && (v as number) >= 1)) throw new Error(`${where}.${key} must be a whole number >= 1 (got ${JSON.stringify(v)})`);
    }
    if (agent.budgetUsd !== undefined && !(typeof agent.budgetUsd === 'number' && agent.budgetUsd > 0)) {
      throw new Error(`${where}.budgetUsd must be a number > 0`);
    }
    if (agent.deadline !== undefined) durationMs(agent.deadline as string, `${where}.deadline`);
    const priority = agent.priority === undefined ? null : priorityProblem({ priorityKey: agent.priority as number }, { name: (path) => `${where}.${path}` });
    if (priority) throw new Error(priority);
    if (agent.effort !== undefined && !EFFORTS.includes(agent.effort as never)) throw new Error(`${where}.effort must be one of ${EFFORTS.join(', ')}`);
    if (agent.outputSchema !== undefined) {
      const problem = validateJsonSchema(agent.outputSchema);
      if (problem || !isObject(agent.outputSchema)) throw new Error(`${where}.outputSchema: ${problem ?? 'must be a JSON Schema object'}`);
    }
    if (agent.inputSchema !== undefined) {
      const schema = agent.inputSchema;
      const problem = validateJsonSchema(schema);
      if (problem || !isObject(schema)) throw new Error(`${where}.inputSchema: ${problem ?? 'must be a JSON Schema object'}`);
      if (schema.type !== undefined && schema.type !== 'object') throw new Error(`${where}.inputSchema must be an object schema (type "object"): its properties are added to { task }`);
      if (isObject(schema.properties) && 'task' in schema.properties) {
        throw new Error(`${where}.inputSchema must not define "task": every sub-agent's input has it already`);
      }
    }
    if (agent.tools !== undefined) {
      if (!Array.isArray(agent.tools) || agent.tools.some((t) => typeof t !== 'string')) throw new Error(`${where}.tools must be an array of tool names`);
      for (const tool of agent.tools as string[]) {
        if (isAgentTool(tool)) {
          const other = tool.slice('agent__'.length);
          if (!(other in agents)) throw new Error(`${where}.tools names ${tool}, but there is no agent "${other}" (agents: ${Object.keys(agents).join(', ')})`);
        } else if (!isKnownTool(tool)) {
          throw new Error(`${where}.tools names "${tool}", which is not a tool this config has (a built-in, one of its tools, or <server>__<tool> of its MCP servers)`);
        }
      }
    }
  }
  const defs = agents as Record<string, SubAgentConfig>;
  for (const name of Object.keys(defs)) {
    const depth = delegationDepth(defs, name);
    if ('cycle' in depth) {
      throw new Error(`agents: ${depth.cycle.join(' → ')} is a cycle: a sub-agent cannot delegate to itself, directly or through others`);
    }
    if (depth.levels > maxDepth) {
      throw new Error(`agents.${name} delegates ${depth.levels} levels deep, beyond the depth limit of ${maxDepth} (maxAgentDepth)`);
    }
  }
  return defs;
}

/** The definitions a worker records: durations in ms. */
export function subAgentDefinitions(agents: Record<string, SubAgentConfig> | undefined): Record<string, SubAgentDefinition> | undefined {
  if (!agents) return undefined;
  return Object.fromEntries(
    Object.entries(agents).map(([name, { deadline, ...rest }]) => [
      name,
      deadline !== undefined ? { ...rest, deadlineMs: durationMs(deadline, `agents.${name}.deadline`) } : rest,
    ]),
  );
}

/** The `agent__<name>` tool names of every agent a config defines. */
export const agentToolNames = (agents: Record<string, unknown> | undefined) => Object.keys(agents ?? {}).map(agentToolName);

export { agentsIn };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
