// `start` with no worker to ask what tools it offers (src/client/worker-catalog.ts): the exact tools of the config's
// MCP servers it names, listed from here.
import { mcpServerOf, mcpServerPattern, type ToolCatalog } from '../config/tool-names.js';
import type { McpServerConfig } from '../config/types.js';
import { logLine } from './log.js';

/** How long listing the config's MCP servers' tools may take in `start` before it goes on without them. */
const MCP_LISTING_TIMEOUT_MS = 15_000;

/** With no worker to ask: the catalog with the exact tools of the config's MCP servers that `tools` names a tool of,
 * listed by connecting to them here (as a worker would), so a mistyped `<server>__<tool>` is refused with the
 * nearest real name. A server that cannot be listed from here (its environment, a network only the workers reach)
 * leaves the catalog as it was, and says so: the worker checks those names when the run starts. */
export async function withListedMcpTools(
  tools: readonly string[] | undefined,
  catalog: ToolCatalog,
  servers: Record<string, McpServerConfig>,
): Promise<ToolCatalog> {
  const named = [
    ...new Set(
      (tools ?? []).flatMap((name) => {
        const server = mcpServerOf(name);
        return server !== undefined && name !== mcpServerPattern(server) && Object.hasOwn(servers, server) ? [server] : [];
      }),
    ),
  ];
  if (named.length === 0) return catalog;
  const which = `MCP server${named.length === 1 ? '' : 's'} ${named.map((n) => `"${n}"`).join(', ')}`;
  logLine(`no worker to ask: listing the tools of ${which} from --config here (up to ${MCP_LISTING_TIMEOUT_MS / 1000} s)…`);
  const { connectMcpServers } = await import('../mcp/tools.js');
  const connecting = connectMcpServers(Object.fromEntries(named.map((n) => [n, servers[n]])), { log: () => undefined });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no listing within ${MCP_LISTING_TIMEOUT_MS / 1000} s`)), MCP_LISTING_TIMEOUT_MS);
  });
  try {
    const mcp = await Promise.race([connecting, timeout]);
    const listed = mcp.toolNames();
    await mcp.close();
    return { ...catalog, mcpTools: listed };
  } catch (err) {
    void connecting.then((mcp) => mcp.close(), () => undefined);
    logLine(`could not list the tools of ${which} here (${(err as Error).message.split('\n')[0]}): the worker checks those names when the run starts`);
    return catalog;
  } finally {
    clearTimeout(timer);
  }
}
