// The tool catalog `start` checks a run's tools against. `start` runs no worker, so the tools it can see in its
// own config are not the whole story: tools a worker configures in code (AgentPlugin({ mcpServers })) and the
// exact names of its MCP servers' tools are known only to that worker. When --tools is not given, or names a
// tool this process cannot vouch for, `start` asks the task queue's workers (src/client/task-queue.ts).
import type { Client } from '@temporalio/client';
import { isKnownTool, mcpServerOf, mcpServerPattern, offeredCatalog, type ToolCatalog } from '../config/tool-names.js';
import type { McpServerConfig } from '../config/types.js';
import { commandLine } from './invocation.js';
import { logLine } from './log.js';

/** Whether the config alone cannot tell which tools the run gets or whether they exist: no --tools (the run
 * gets what the workers offer), a name it does not know, or a name of an MCP server (whose tools it cannot list). */
export function needsWorkerCatalog(tools: readonly string[] | undefined, local: ToolCatalog): boolean {
  return tools === undefined || tools.some((name) => !isKnownTool(name, local) || mcpServerOf(name) !== undefined);
}

/** The catalog to check `start`'s tools against: the answering worker's, or this process's own when no worker
 * answered, with the sentence an unknown-tool error then needs (why a worker's own tools are missing). */
export async function startCatalog(
  client: Client,
  taskQueue: string,
  local: ToolCatalog,
): Promise<{ catalog: ToolCatalog; hint?: string; noWorker?: boolean }> {
  const { askWorkersForTools, TOOL_CATALOG_TIMEOUT_MS } = await import('../client/task-queue.js'); // loaded with Temporal's client, on use
  // A worker that polled the queue may have stopped since (the server remembers a poller for minutes): its answer
  // then never comes, and the wait is said rather than silent.
  const answer = await askWorkersForTools(client, taskQueue, TOOL_CATALOG_TIMEOUT_MS, (at) =>
    logLine(
      `waiting up to ${TOOL_CATALOG_TIMEOUT_MS / 1000} s for a worker of task queue "${taskQueue}" to say what tools it offers` +
        `${at ? ` (one last polled it ${secondsAgo(at)} ago: it may have stopped)` : ''}…`,
    ),
  );
  if (answer.answered) return { catalog: offeredCatalog(answer.offered) };
  return {
    noWorker: true,
    catalog: local,
    hint:
      `${answer.why}, so only this process's tools are known here (the built-ins and --config); tools a worker ` +
      `defines in its code (AgentPlugin({ mcpServers })) are checked once it runs: start it first (${commandLine('worker')}), ` +
      'or give the same tools and mcpServers in --config',
  };
}

const secondsAgo = (at: Date) => `${Math.max(0, Math.round((Date.now() - at.getTime()) / 1000))} s`;

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
