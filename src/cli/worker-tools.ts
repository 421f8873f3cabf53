// The tool catalog `start` checks a run's tools against. `start` runs no worker, so the tools it can see in its
// own config are not the whole story: tools a worker configures in code (AgentPlugin({ mcpServers })) and the
// exact names of its MCP servers' tools are known only to that worker. When --tools is not given, or names a
// tool this process cannot vouch for, `start` asks the task queue's workers (src/client/task-queue.ts).
import type { Client } from '@temporalio/client';
import { isKnownTool, mcpServerOf, offeredCatalog, type ToolCatalog } from '../config/tool-names.js';
import { commandLine } from './invocation.js';

/** Whether the config alone cannot tell which tools the run gets or whether they exist: no --tools (the run
 * gets what the workers offer), a name it does not know, or a name of an MCP server (whose tools it cannot list). */
export function needsWorkerCatalog(tools: readonly string[] | undefined, local: ToolCatalog): boolean {
  return tools === undefined || tools.some((name) => !isKnownTool(name, local) || mcpServerOf(name) !== undefined);
}

/** The catalog to check `start`'s tools against: the answering worker's, or this process's own when no worker
 * answered, with the sentence an unknown-tool error then needs (why a worker's own tools are missing). */
export async function startCatalog(client: Client, taskQueue: string, local: ToolCatalog): Promise<{ catalog: ToolCatalog; hint?: string }> {
  const { askWorkersForTools } = await import('../client/task-queue.js'); // loaded with Temporal's client, on use
  const answer = await askWorkersForTools(client, taskQueue);
  if (answer.answered) return { catalog: offeredCatalog(answer.offered) };
  return {
    catalog: local,
    hint:
      `${answer.why}, so only this process's tools are known here (the built-ins and --config); tools a worker ` +
      `defines in its code (AgentPlugin({ mcpServers })) are checked once it runs: start it first (${commandLine('worker')}), ` +
      'or give the same tools and mcpServers in --config',
  };
}
