// Tool names and the patterns a run's `tools` setting may hold. An MCP server's tools are offered to the
// model as `<server>__<tool>`, and `<server>__*` stands for all of them. Pure: the workflow uses it too.
import { isAgentTool } from './sub-agents.js';

/** Between an MCP server's name and its tool's name in the name the model sees. */
export const MCP_SEPARATOR = '__';

/** The Messages API's rule for tool names. */
export const API_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** `files__read` → `{ server: 'files', tool: 'read' }`; null for a name without the separator. */
export function splitMcpName(name: string): { server: string; tool: string } | null {
  const at = name.indexOf(MCP_SEPARATOR);
  if (at <= 0 || at + MCP_SEPARATOR.length >= name.length) return null;
  return { server: name.slice(0, at), tool: name.slice(at + MCP_SEPARATOR.length) };
}

/** Could this entry of `tools` name an MCP tool (or all of a server's)? Only such runs record definitions. */
export function mayBeMcpTool(name: string): boolean {
  // `agent__<name>` is a sub-agent (src/core/sub-agents.ts): no MCP server may be named `agent`.
  return splitMcpName(name) !== null && !isAgentTool(name);
}

/** Whether `pattern` (an entry of a run's `tools`) stands for the tool `name`: equal, or `<server>__*`. */
export function toolNameMatches(name: string, pattern: string): boolean {
  if (pattern === name) return true;
  const split = splitMcpName(pattern);
  return split !== null && split.tool === '*' && name.startsWith(`${split.server}${MCP_SEPARATOR}`);
}

/** Whether a run whose `tools` setting is `allowed` may call `name`. */
export function toolAllowed(name: string, allowed: readonly string[]): boolean {
  return allowed.some((pattern) => toolNameMatches(name, pattern));
}
