// Which tool names a run may be given: the built-ins, the config's tools, and its MCP servers' tools, written
// `<server>__<tool>` or `<server>__*` (all of that server's tools). The CLI checks names against this catalog
// before it starts a run. It cannot list an MCP server's tools without connecting to it: when a worker said what
// it offers (`start` asks the task queue's workers), its exact MCP names are checked; otherwise any
// `<server>__<name>` of a configured server passes here, and the worker is what finally knows (it fails the run
// at once naming a tool it does not have).
import { nearestName } from '../core/suggest.js';
import { MCP_SEPARATOR, splitMcpName } from '../core/tool-names.js';
import { toolsWithConfig } from './check.js';
import type { OfferedTools } from '../core/types.js';
import type { AgentConfig } from './types.js';

/** What a run's tool names are checked against: the config's (toolCatalog), or what a worker offers. */
export interface ToolCatalog extends Pick<OfferedTools, 'tools' | 'mcpServers'>, Partial<Pick<OfferedTools, 'agents' | 'maxAgentDepth'>> {
  /** The exact `<server>__<tool>` names of servers whose tools are known (a worker said what it offers): a name
   * of such a server must be one of them. Without it, any name of a configured server passes. */
  mcpTools?: string[];
}

export function toolCatalog(config: AgentConfig): ToolCatalog {
  return {
    tools: toolsWithConfig(config).map((tool) => tool.name),
    mcpServers: Object.keys(config.mcpServers ?? {}),
    agents: Object.keys(config.agents ?? {}),
    ...(config.maxAgentDepth !== undefined ? { maxAgentDepth: config.maxAgentDepth } : {}),
  };
}

/** All the tools of the catalog, as a run without `--tools` gets them: each MCP server as `<server>__*`.
 * A pattern travels in the workflow input (settings.tools) as it is; the run's describeTools activity expands
 * it to the server's tools when the run starts (src/workflows/tool-definitions.ts). */
export function allToolNames(catalog: ToolCatalog): string[] {
  return [...catalog.tools, ...catalog.mcpServers.map(mcpServerPattern)];
}

export const mcpServerPattern = (server: string) => `${server}${MCP_SEPARATOR}*`;

/** The MCP server a `<server>__<tool>` name belongs to, or undefined for any other name. */
export function mcpServerOf(name: string): string | undefined {
  return splitMcpName(name)?.server;
}

export function isKnownTool(name: string, catalog: ToolCatalog): boolean {
  if (catalog.tools.includes(name)) return true;
  const server = mcpServerOf(name);
  if (server === undefined || !catalog.mcpServers.includes(server)) return false;
  if (!catalog.mcpTools || name === mcpServerPattern(server)) return true;
  return catalog.mcpTools.includes(name);
}

export interface UnknownTool {
  name: string;
  /** The nearest known name, when it is close enough to be what was meant. */
  suggestion?: string;
}

export function unknownTools(names: readonly string[], catalog: ToolCatalog): UnknownTool[] {
  const candidates = [...allToolNames(catalog), ...(catalog.mcpTools ?? [])];
  return names.filter((name) => !isKnownTool(name, catalog)).map((name) => ({ name, suggestion: suggestionFor(name) }));

  function suggestionFor(name: string): string | undefined {
    // `githb__list_issues`: the server name is what is wrong; the tool part cannot be checked here.
    const server = mcpServerOf(name);
    const nearServer = server !== undefined ? nearestName(server, catalog.mcpServers) : undefined;
    if (server !== undefined && nearServer && nearServer !== server) {
      const renamed = `${nearServer}${name.slice(server.length)}`;
      return catalog.mcpTools ? (nearestName(renamed, catalog.mcpTools) ?? renamed) : renamed;
    }
    return nearestName(name, candidates);
  }
}

/** `"wether" (did you mean "weather"?)`, for an error message. */
export function describeUnknown(unknown: readonly UnknownTool[]): string {
  return unknown.map((u) => `"${u.name}"${u.suggestion ? ` (did you mean "${u.suggestion}"?)` : ''}`).join(', ');
}

/** Whether this catalog alone cannot tell which tools a run gets or whether they exist: no tools given (the run gets
 * what the workers offer), a name it does not know, or a name of an MCP server (whose tools it cannot list). */
export function needsWorkerCatalog(tools: readonly string[] | undefined, local: ToolCatalog): boolean {
  return tools === undefined || tools.some((name) => !isKnownTool(name, local) || mcpServerOf(name) !== undefined);
}
