// Encryption keys and workers: a run encrypted with a key starts on that key's task queue (`<queue>@<keyId>`,
// src/client/start.ts runTaskQueue), which needs a worker of its own for each key (encryptionKeyQueues; createAgentWorker
// creates them, a team's own worker with AgentPlugin creates them itself). A worker without
// a run's key never takes its tasks; it says so at start (warnOfRunsWaitingForKeys), and says, once per key id,
// when it is given a task it cannot decrypt all the same (workerDataConverter: a run from before key queues).
import type { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';
import { agentDataConverter } from '../codec/data-converter.js';
import { codecKeyIds } from '../codec/encryption-codec.js';
import { ENCRYPTION_KEYS_VARIABLE } from '../codec/keys.js';
import { encryptedTaskQueue, keyIdOfTaskQueue } from '../core/policies.js';
import { AGENT_WORKFLOW } from '../workflows/definitions.js';

/** The project's data converter (agentDataConverter) for a worker: the first task whose payloads it cannot read
 * (no AGENT_ENCRYPTION_KEYS, or not that key id) is said once per key id, loudly, beside the task's failure. */
export function workerDataConverter(env: NodeJS.ProcessEnv = process.env): DataConverter {
  return agentDataConverter(env, {
    onUnreadable: (keyId, message) =>
      Runtime.instance().logger.error(
        `this worker was given a task it cannot read: ${message}. The task fails here (a model or tool call loses an attempt); ` +
          `runs encrypted with key id "${keyId}" can only go on on workers whose ${ENCRYPTION_KEYS_VARIABLE} lists it`,
      ),
  });
}

/** The task queues a worker of `taskQueue` needs beside it for runs encrypted with the keys `dataConverter` holds
 * (`<taskQueue>@<keyId>`, one per key; none without encryption). Each needs a worker with the same plugin: runs
 * encrypted with a key start there, so that a worker without that key never takes, and never fails, their tasks. */
export function encryptionKeyQueues(taskQueue: string, dataConverter: DataConverter = workerDataConverter()): string[] {
  return codecKeyIds(dataConverter.payloadCodecs ?? []).map((id) => encryptedTaskQueue(taskQueue, id));
}

/** Says, once at start, when runs of `taskQueue` wait for a key a worker holding `keyIds` lacks (a worker
 * started without AGENT_ENCRYPTION_KEYS, or before a rotation): it will not take them, and they wait. */
export async function warnOfRunsWaitingForKeys(client: Client, taskQueue: string, keyIds: readonly string[]): Promise<void> {
  if (taskQueue.includes("'")) return;
  const waiting = new Map<string, number>();
  try {
    const query = `WorkflowType = '${AGENT_WORKFLOW}' AND ExecutionStatus = 'Running' AND TaskQueue STARTS_WITH '${taskQueue}@'`;
    let seen = 0;
    for await (const run of client.workflow.list({ query, pageSize: 200 })) {
      const id = keyIdOfTaskQueue(taskQueue, run.taskQueue);
      if (id && !keyIds.includes(id)) waiting.set(id, (waiting.get(id) ?? 0) + 1);
      if (++seen >= 1000) break;
    }
  } catch {
    return; // a hint only: a server that cannot answer the query gets none
  }
  for (const [id, count] of waiting) {
    const held = keyIds.length === 0 ? `${ENCRYPTION_KEYS_VARIABLE} is not set here` : `${ENCRYPTION_KEYS_VARIABLE} here does not list it (it lists ${keyIds.join(', ')})`;
    Runtime.instance().logger.warn(
      `${count}${count >= 1000 ? '+' : ''} running run${count === 1 ? ' is' : 's are'} encrypted with key id "${id}" (task queue "${encryptedTaskQueue(taskQueue, id)}"), ` +
        `which this worker cannot read: ${held}. This worker does not take them; they wait for a worker whose ${ENCRYPTION_KEYS_VARIABLE} lists "${id}"`,
    );
  }
}
