// What the server knows of a task queue's workers: whether any polls it, and (by asking one, through a short
// workflow) what tools they offer.
import { randomUUID } from 'node:crypto';
import proto from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import type { OfferedTools } from '../core/types.js';
import { AGENT_TOOL_CATALOG_WORKFLOW } from '../workflows/definitions.js';

/** Whether workers poll the queue's workflow tasks; undefined when the server could not say. */
export async function hasPollers(client: Client, taskQueue: string): Promise<boolean | undefined> {
  return (await lastPolled(client, taskQueue))?.polled;
}

/** Whether workers have polled the queue's workflow tasks, and when one last did (the server keeps a poller for
 * minutes after its worker stopped); undefined when the server could not say. */
export async function lastPolled(client: Client, taskQueue: string): Promise<{ polled: boolean; at?: Date } | undefined> {
  try {
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue, kind: proto.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    const times = (pollers ?? []).map((p) => Number(p.lastAccessTime?.seconds ?? 0) * 1000 + Math.floor((p.lastAccessTime?.nanos ?? 0) / 1e6));
    const latest = Math.max(0, ...times);
    return { polled: times.length > 0, ...(latest > 0 ? { at: new Date(latest) } : {}) };
  } catch {
    return undefined;
  }
}

/** How long a worker has to answer what it offers before the caller goes on without it. */
export const TOOL_CATALOG_TIMEOUT_MS = 10_000;

export type WorkerTools = { answered: true; offered: OfferedTools } | { answered: false; why: string };

/** Asks a worker of `taskQueue` what tools it offers: at once "none polls" when no worker polls the queue, else
 * a one-activity workflow (agentToolCatalog) that a worker answers, within TOOL_CATALOG_TIMEOUT_MS. */
export async function askWorkersForTools(
  client: Client,
  taskQueue: string,
  /** Called once if no worker has answered after a second: the caller says what it waits for. */
  onSlow: (polledAt: Date | undefined) => void,
): Promise<WorkerTools> {
  const polled = await lastPolled(client, taskQueue);
  if (polled?.polled === false) return { answered: false, why: `no worker polls task queue "${taskQueue}"` };
  const slow = setTimeout(() => onSlow(polled?.at), SLOW_ANSWER_MS);
  try {
    const offered = await client.workflow.execute<() => Promise<OfferedTools>>(AGENT_TOOL_CATALOG_WORKFLOW, {
      taskQueue,
      workflowId: `durable-agent-tool-catalog-${randomUUID()}`,
      workflowExecutionTimeout: TOOL_CATALOG_TIMEOUT_MS,
    });
    return { answered: true, offered };
  } catch (err) {
    return { answered: false, why: `no worker of task queue "${taskQueue}" said what tools it offers within ${TOOL_CATALOG_TIMEOUT_MS} ms (${(err as Error).message})` };
  } finally {
    clearTimeout(slow);
  }
}

/** A worker answers the catalog in milliseconds: one that has not after this long may be gone. */
const SLOW_ANSWER_MS = 1_000;
