// Checking a config file's default export (`defineConfig({ tools, mcpServers, scriptedModel, agents, maxAgentDepth })`)
// once load.ts has imported it: each problem is a ConfigError naming the file and the key, and how to fix it.
import { isServerName, mcpServerPolicy } from '../mcp/config.js';
import { isObject } from '../core/is-object.js';
import { checkAgents } from './agents.js';
import { isScriptsByAgent, validateScriptTurns, type Script, type ScriptsByAgent } from '../scripted/script.js';
import { builtinTools, createToolRegistry } from '../tools/registry.js';
import { DEFINE_TOOL, missingToolFields } from '../tools/shape.js';
import type { AnyAgentTool } from '../tools/types.js';
import type { AgentConfig, McpServerConfig } from './types.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
  /** `cause`: what the file (or a module it imports) threw while loading, with its stack, when that is the problem. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The default export, checked: a plain object with `tools` (AnyAgentTool[]) and `mcpServers` (by name). */
export function checkConfig(value: unknown, shown: string): AgentConfig {
  if (!isObject(value)) {
    throw new ConfigError(`the default export of ${shown} must be an object, defineConfig({ tools, mcpServers }) (got ${describe(value)})`);
  }
  const unknownKeys = Object.keys(value).filter((key) => !CONFIG_KEYS.includes(key));
  if (unknownKeys.length > 0) {
    throw new ConfigError(`${shown}: unknown config key ${unknownKeys.map((k) => `"${k}"`).join(', ')} (expected ${CONFIG_KEYS.join(', ')})`);
  }
  const config: AgentConfig = {};
  if (value.tools !== undefined) config.tools = checkTools(value.tools, shown);
  if (value.mcpServers !== undefined) config.mcpServers = checkMcpServers(value.mcpServers, shown);
  const servers = Object.keys(config.mcpServers ?? {});
  const clash = (config.tools ?? []).find((tool) => servers.some((server) => tool.name.startsWith(`${server}__`)));
  if (clash) {
    throw new ConfigError(
      `${shown}: the tool "${clash.name}" takes a name of the MCP server "${clash.name.split('__')[0]}" (<server>__<tool> are its tools): rename the tool`,
    );
  }
  if (value.scriptedModel !== undefined) config.scriptedModel = checkScript(value.scriptedModel, shown);
  if (value.maxAgentDepth !== undefined) {
    if (!Number.isInteger(value.maxAgentDepth) || (value.maxAgentDepth as number) < 1) {
      throw new ConfigError(`${shown}: maxAgentDepth must be a whole number >= 1 (got ${describe(value.maxAgentDepth)})`);
    }
    config.maxAgentDepth = value.maxAgentDepth as number;
  }
  if (value.agents !== undefined) {
    const catalog = toolsWithConfig(config).map((tool) => tool.name);
    const known = (name: string) => catalog.includes(name) || servers.some((server) => name.startsWith(`${server}__`));
    config.agents = inFile(shown, () => checkAgents(value.agents, known, config.maxAgentDepth));
  }
  return config;
}

const CONFIG_KEYS = ['tools', 'mcpServers', 'scriptedModel', 'agents', 'maxAgentDepth'];

/** A script for the scripted model: a function of the request, or an array of turns (checked as a script file is);
 * or `{ script, agents: { <name>: script } }`, one script per agent. */
function checkScript(script: unknown, shown: string, where = 'scriptedModel'): Script | ScriptsByAgent {
  if (where === 'scriptedModel' && isScriptsByAgent(script)) {
    const extra = Object.keys(script).filter((key) => key !== 'script' && key !== 'agents');
    if (extra.length > 0) throw new ConfigError(`${shown}: scriptedModel: unknown key "${extra[0]}" (expected script, agents)`);
    if (!isObject(script.agents)) throw new ConfigError(`${shown}: scriptedModel.agents must map agent names to scripts (got ${describe(script.agents)})`);
    const agents = Object.fromEntries(Object.entries(script.agents).map(([name, s]) => [name, checkScript(s, shown, `scriptedModel.agents.${name}`) as Script]));
    return { script: checkScript(script.script, shown, 'scriptedModel.script') as Script, agents };
  }
  if (typeof script === 'function') return script as Script;
  try {
    return validateScriptTurns(script, `${shown}: ${where}`);
  } catch (err) {
    const problem = (err as Error).message;
    const also = where === 'scriptedModel' ? ', or { script, agents: { <name>: script } }' : '';
    throw new ConfigError(Array.isArray(script) ? problem : `${shown}: ${where} must be a function (request, turn) => turn, or an array of turns${also} (got ${describe(script)})`);
  }
}

function checkTools(tools: unknown, shown: string): AnyAgentTool[] {
  if (!Array.isArray(tools)) throw new ConfigError(`${shown}: tools must be an array of tools (got ${describe(tools)})`);
  tools.forEach((tool, i) => {
    const missing = missingToolFields(tool);
    if (missing.length > 0) throw new ConfigError(`${shown}: tools[${i}] is not a tool (${describe(tool)}, missing ${missing.join(', ')}): ${DEFINE_TOOL}`);
  });
  // The registry's own checks (API name rule, unique names, a valid JSON Schema), reported at load time.
  inFile(shown, () => createToolRegistry(tools as AnyAgentTool[]));
  return tools as AnyAgentTool[];
}

function checkMcpServers(servers: unknown, shown: string): Record<string, McpServerConfig> {
  if (!isObject(servers)) {
    throw new ConfigError(`${shown}: mcpServers must be an object of servers by name (got ${describe(servers)})`);
  }
  for (const [name, server] of Object.entries(servers)) {
    if (name === 'agent') {
      throw new ConfigError(`${shown}: MCP server name "agent" is reserved: agent__<name> are the sub-agents' tools; rename the server`);
    }
    if (!isServerName(name)) {
      throw new ConfigError(`${shown}: MCP server name "${name}" must be letters, digits, "_" or "-" without "__" (it prefixes its tools' names)`);
    }
    const isStdio = isObject(server) && typeof server.command === 'string';
    const isHttp = isObject(server) && typeof server.url === 'string';
    if (isStdio === isHttp) {
      throw new ConfigError(
        `${shown}: mcpServers.${name} needs either command (a server spawned over stdio) or url (streamable HTTP), not ${
          isStdio ? 'both' : describe(server)
        }`,
      );
    }
    inFile(shown, () => mcpServerPolicy(name, server as McpServerConfig));
  }
  return servers as Record<string, McpServerConfig>;
}

/** The tools a worker registers with this config: the built-ins, then the config's. A config tool with a
 * built-in's name replaces it (e.g. a real `web_search` for the stub). */
export function toolsWithConfig(config: AgentConfig, base: AnyAgentTool[] = builtinTools): AnyAgentTool[] {
  const own = config.tools ?? [];
  const replaced = new Set(own.map((tool) => tool.name));
  return [...base.filter((tool) => !replaced.has(tool.name)), ...own];
}

/** A check made elsewhere (the agents, the tool registry, an MCP server's policy): what it throws is a problem of the file. */
function inFile<T>(shown: string, check: () => T): T {
  try {
    return check();
  } catch (err) {
    throw new ConfigError(`${shown}: ${(err as Error).message}`);
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const name = (value as { name?: unknown }).name;
    return typeof name === 'string' ? `an object named "${name}"` : 'an object';
  }
  if (typeof value === 'function') return `a function${value.name ? ` ${value.name}` : ''}`;
  return `${typeof value} ${JSON.stringify(value)}`;
}
