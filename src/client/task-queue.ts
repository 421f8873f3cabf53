// What the server knows of a task queue's workers: whether any polls it, and (by asking one, through a short
// workflow) what tools they offer.
import { randomUUID } from 'node:crypto';
import proto from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import type { OfferedTools } from '../core/types.js';
import { AGENT_TOOL_CATALOG_WORKFLOW } from '../workflows/definitions.js';

/** Whether workers poll the queue's workflow tasks; undefined when the server could not say. */
export async function hasPollers(client: Client, taskQueue: string): Promise<boolean | undefined> {
  try {
    const { pollers } = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue, kind: proto.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    return (pollers ?? []).length > 0;
  } catch {
    return undefined;
  }
}

/** How long a worker has to answer what it offers before the caller goes on without it. */
export const TOOL_CATALOG_TIMEOUT_MS = 10_000;

export type WorkerTools = { answered: true; offered: OfferedTools } | { answered: false; why: string };

/** Asks a worker of `taskQueue` what tools it offers: at once "none polls" when no worker polls the queue, else
 * a one-activity workflow (agentToolCatalog) that a worker answers, within `timeoutMs`. */
export async function askWorkersForTools(client: Client, taskQueue: string, timeoutMs = TOOL_CATALOG_TIMEOUT_MS): Promise<WorkerTools> {
  const polled = await hasPollers(client, taskQueue);
  if (polled === false) return { answered: false, why: `no worker polls task queue "${taskQueue}"` };
  try {
    const offered = await client.workflow.execute<() => Promise<OfferedTools>>(AGENT_TOOL_CATALOG_WORKFLOW, {
      taskQueue,
      workflowId: `durable-agent-tool-catalog-${randomUUID()}`,
      workflowExecutionTimeout: timeoutMs,
    });
    return { answered: true, offered };
  } catch (err) {
    return { answered: false, why: `no worker of task queue "${taskQueue}" said what tools it offers within ${timeoutMs} ms (${(err as Error).message})` };
  }
}
