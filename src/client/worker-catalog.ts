// The tool catalog a start checks a run's tools against. A process that runs no worker (`start`, `serve`) does not
// see every tool: those a worker configures in code (AgentPlugin({ mcpServers })) and the exact names of its MCP
// servers' tools are known only to that worker. When no tools are given, or a name this process cannot vouch for,
// the task queue's workers are asked (./task-queue.ts).
import type { Client } from '@temporalio/client';
import type { ToolCatalog } from '../config/tool-names.js';

export interface StartCatalog {
  catalog: ToolCatalog;
  /** Why a worker's own tools may be missing from `catalog` (no worker answered): said after an unknown-tool error. */
  hint?: string;
  noWorker?: boolean;
}

/** The catalog to check a start's tools against: the answering worker's, or `local` when no worker answered. */
export async function startCatalog(
  client: Client,
  taskQueue: string,
  local: ToolCatalog,
  { log, workerCommand }: { log: (line: string) => void; workerCommand: string },
): Promise<StartCatalog> {
  const { askWorkersForTools, TOOL_CATALOG_TIMEOUT_MS } = await import('./task-queue.js'); // loaded with Temporal's client, on use
  // A worker that polled the queue may have stopped since (the server remembers a poller for minutes): its answer
  // then never comes, and the wait is said rather than silent.
  const answer = await askWorkersForTools(client, taskQueue, (at) =>
    log(
      `waiting up to ${TOOL_CATALOG_TIMEOUT_MS / 1000} s for a worker of task queue "${taskQueue}" to say what tools it offers` +
        `${at ? ` (one last polled it ${secondsAgo(at)} ago: it may have stopped)` : ''}…`,
    ),
  );
  // What the answering worker offers (OfferedTools is a ToolCatalog): the config's tools it lacks are left out.
  if (answer.answered) return { catalog: answer.offered };
  return {
    noWorker: true,
    catalog: local,
    hint:
      `${answer.why}, so only this process's tools are known here (the built-ins and --config); tools a worker ` +
      `defines in its code (AgentPlugin({ mcpServers })) are checked once it runs: start it first (${workerCommand}), ` +
      'or give the same tools and mcpServers in --config',
  };
}

const secondsAgo = (at: Date) => `${Math.max(0, Math.round((Date.now() - at.getTime()) / 1000))} s`;
