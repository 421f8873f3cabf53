// A worker that cannot read encrypted runs (started without AGENT_ENCRYPTION_KEYS, or without their key id) never
// takes their tasks: encrypted runs start on their key's task queue (`<queue>@<keyId>`), which only workers
// holding that key poll. Beside a keyed worker, it costs those runs nothing: no failed workflow task, no attempt.
// Started while encrypted runs wait, it says so; given a task it cannot read (a run started before key queues,
// on the plain queue), it says so once, naming the key id and the variable.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { agentDataConverter } from '../../src/codec/data-converter.js';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { AGENT_WORKFLOW } from '../../src/workflows/definitions.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { createAgentWorker, type AgentWorker } from '../../src/worker/worker.js';
import { openTestEnv, withAgent, type TestEnv } from '../helpers/harness.js';
import { workerLogs } from '../setup-runtime.js';

const keys = `k1:${randomBytes(32).toString('base64')}`;
const script: Script = [reply([text('Computing.'), toolUse('calculator', { expression: '6*7' })]), reply([text('It is 42.')])];
let keyed: TestEnv;
let plain: TestEnv;
beforeAll(async () => {
  keyed = await openTestEnv(agentDataConverter({ AGENT_ENCRYPTION_KEYS: keys }));
  plain = await openTestEnv(agentDataConverter({}));
});
afterAll(async () => {
  await keyed?.close();
  await plain?.close();
});

/** A worker on `taskQueue` without keys, reaching the scripted model at `modelUrl`. */
function keylessWorker(taskQueue: string, modelUrl: string, identity: string): Promise<AgentWorker> {
  return createAgentWorker({
    connection: plain.connection,
    client: plain.client,
    taskQueue,
    model: { apiKey: 'test-key', baseURL: modelUrl },
    workerOptions: { identity },
  });
}

interface TaskEvents {
  failedWorkflowTasks: number;
  attempts: number[];
  identities: string[];
}

async function taskEvents(workflowId: string): Promise<TaskEvents> {
  const history = await keyed.client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  return {
    failedWorkflowTasks: events.filter((e) => e.workflowTaskFailedEventAttributes).length,
    attempts: events.flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 0] : [])),
    identities: events.flatMap((e) => {
      const identity = e.workflowTaskStartedEventAttributes?.identity ?? e.activityTaskStartedEventAttributes?.identity;
      return identity ? [identity] : [];
    }),
  };
}

describe('a worker without the encryption key', { timeout: 120_000 }, () => {
  it('polling beside a keyed worker while ten encrypted runs start: 10 of 10 complete, none of their tasks reaches it', async () => {
    const taskQueue = `test-${randomUUID()}`;
    const ids = await withAgent(keyed, { script, taskQueue }, async (h) => {
      const keyless = await keylessWorker(taskQueue, h.model.url, 'keyless-worker');
      return keyless.worker.runUntil(async () => {
        await vi.waitFor(() => expect(keyless.worker.getState()).toBe('RUNNING'));
        const settings = defaultSettings({ tools: ['calculator'] });
        const started = await Promise.all(
          Array.from({ length: 10 }, (_, i) => startAgent(keyed.client, { task: `run ${i}: what is 6*7`, settings, taskQueue })),
        );
        const results = await Promise.all(started.map((s) => getAgentResult(keyed.client, s.workflowId)));
        expect(results.map((r) => r.status)).toEqual(Array(10).fill('completed'));
        return started.map((s) => s.workflowId);
      });
    });
    for (const id of ids) {
      const events = await taskEvents(id);
      expect(events.failedWorkflowTasks).toBe(0);
      expect(events.attempts.length).toBeGreaterThanOrEqual(3); // two model calls and the calculator call
      expect(events.attempts.every((a) => a === 1)).toBe(true);
      expect(events.identities.filter((i) => i.startsWith('keyless-worker'))).toEqual([]);
    }
    const description = await keyed.client.workflow.getHandle(ids[0]).describe();
    expect(description.taskQueue).toBe(`${taskQueue}@k1`);
  });

  it('a worker holding a new key and the old one runs what clients still on the old key start (its queue too)', async () => {
    const rotated = await openTestEnv(agentDataConverter({ AGENT_ENCRYPTION_KEYS: `k2:${randomBytes(32).toString('base64')},${keys}` }));
    try {
      const taskQueue = `test-${randomUUID()}`;
      await withAgent(rotated, { script, taskQueue }, async () => {
        const settings = defaultSettings({ tools: ['calculator'] });
        const [old, next] = await Promise.all([
          startAgent(keyed.client, { task: 'started with k1', settings, taskQueue }),
          startAgent(rotated.client, { task: 'started with k2', settings, taskQueue }),
        ]);
        // Read with the new list: the worker wrote the result with k2, its first key.
        expect((await getAgentResult(rotated.client, old.workflowId)).status).toBe('completed');
        expect((await rotated.client.workflow.getHandle(old.workflowId).describe()).taskQueue).toBe(`${taskQueue}@k1`);
        expect((await getAgentResult(rotated.client, next.workflowId)).status).toBe('completed');
        expect((await rotated.client.workflow.getHandle(next.workflowId).describe()).taskQueue).toBe(`${taskQueue}@k2`);
      });
    } finally {
      await rotated.close();
    }
  });

  it('says at start that encrypted runs wait for a key it lacks, and on the first task it cannot read names the key id and the variable', async () => {
    const taskQueue = `test-${randomUUID()}`;
    const settings = defaultSettings({ tools: ['calculator'] });
    const waiting = await startAgent(keyed.client, { task: 'waits for a keyed worker', settings, taskQueue });
    // A run started on the plain queue, as every encrypted run was before key queues.
    // A short workflow task timeout: the keyless worker fails its first task and lets the next attempt time out (the
    // SDK reports a task's failure once), which the keyed worker then waits out (the server's default, 10 s).
    const legacy = await keyed.client.workflow.start(AGENT_WORKFLOW, {
      workflowId: `legacy-${randomUUID()}`,
      taskQueue,
      args: [{ task: 'an old encrypted run', settings }],
      workflowTaskTimeout: '3s',
    });
    // Its converter is the worker's default (AGENT_ENCRYPTION_KEYS is not set in the tests' environment).
    const keyless = await keylessWorker(taskQueue, 'http://127.0.0.1:9', 'keyless-worker');
    await keyless.worker.runUntil(async () => {
      await vi.waitFor(
        () => {
          const messages = workerLogs().map((e) => e.message);
          expect(messages).toContain(
            `1 running run is encrypted with key id "k1" (task queue "${taskQueue}@k1"), which this worker cannot read: ` +
              'AGENT_ENCRYPTION_KEYS is not set here. This worker does not take them; they wait for a worker whose AGENT_ENCRYPTION_KEYS lists "k1"',
          );
          expect(messages.filter((m) => m.startsWith('this worker was given a task it cannot read: this run\'s data is encrypted (key id "k1") and AGENT_ENCRYPTION_KEYS is not set here'))).toHaveLength(1);
        },
        { timeout: 20_000, interval: 100 },
      );
    });
    // A keyed worker then runs both.
    await withAgent(keyed, { script, taskQueue }, async () => {
      expect((await getAgentResult(keyed.client, waiting.workflowId)).status).toBe('completed');
      // The keyless worker never saw it: no failed workflow task, so no backoff to wait out.
      expect((await taskEvents(waiting.workflowId)).failedWorkflowTasks).toBe(0);
      expect((await getAgentResult(keyed.client, legacy.workflowId)).status).toBe('completed');
    });
  });
});
