// The `agents` of a config file (or of AgentPlugin): named sub-agents, checked when the config is loaded, and turned
// into the definitions a worker records for the runs that delegate to them. Every way one can be wrong is a
// one-line message naming the agent (the CLI turns it into exit code 2).
import type { SubAgentDefinition } from '../core/types.js';
import { isObject } from '../core/is-object.js';
import { AGENT_NAME, agentToolName, DEFAULT_MAX_AGENT_DEPTH, delegationDepth, isAgentTool } from '../core/sub-agents.js';
import { durationMs } from '../tools/policy.js';
import { validateJsonSchema } from '../tools/validate.js';
import { givenProblem } from '../core/settings-check.js';
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
    // The settings a sub-agent may set are run settings: the table's check, in the config's names.
    const { description: _d, tools: _t, deadline, inputSchema: _i, ...settings } = agent;
    if (deadline !== undefined) durationMs(deadline as string, `${where}.deadline`);
    const problem = givenProblem(settings, { compileSchema: validateJsonSchema, name: (path) => `${where}.${path}` });
    if (problem) throw new Error(`${where}.${problem.path} ${problem.problem}`);
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
