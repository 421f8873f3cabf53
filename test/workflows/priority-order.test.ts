// Priority and fairness change the order of dispatch only where the server's matcher does: Temporal Server 1.29's
// priority matcher (`matching.useNewMatcher`) and fairness (`matching.enableFairness`) are off by default, also in
// the dev server. A dev server of its own with both on: a backlog of runs waiting for a worker is dispatched by
// priority first, then fairly between fairness keys (not first come, first served).
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { defaultSettings, getAgentResult, startAgent, type RunPriority } from '../../src/client/index.js';
import { startDevServer, type DevServer } from '../../src/devserver/dev-server.js';
import { reply, startScriptedModel, text, type ScriptedModel } from '../../src/scripted/index.js';
import { createAgentWorker } from '../../src/worker/worker.js';

let server: DevServer;
let connection: NativeConnection;
let client: Client;
let model: ScriptedModel;
beforeAll(async () => {
  server = await startDevServer({
    uiPort: false,
    // One partition per task queue: with the default four, tasks spread over partitions that pollers reach at
    // random, and no order holds across them.
    extraArgs: ['matching.useNewMatcher=true', 'matching.enableFairness=true', 'matching.numTaskqueueReadPartitions=1', 'matching.numTaskqueueWritePartitions=1'].flatMap((v) => [
      '--dynamic-config-value',
      v,
    ]),
  });
  connection = await NativeConnection.connect({ address: server.address });
  client = new Client({ connection: await Connection.connect({ address: server.address }) });
  model = await startScriptedModel({ script: () => reply([text('done')]) });
});
afterAll(async () => {
  await model?.close();
  await client?.connection.close();
  await connection?.close();
  await server?.stop();
});

/** Starts the runs in this order while no worker polls, then one small worker (two workflow-task slots): the
 * labels in the order their first workflow task was started. */
async function dispatchOrder(runs: Array<{ label: string; priority: RunPriority }>): Promise<string[]> {
  const taskQueue = `order-${randomUUID()}`;
  const ids: Array<{ label: string; id: string }> = [];
  for (const r of runs) {
    const { workflowId } = await startAgent(client, { task: r.label, settings: defaultSettings({ tools: ['calculator'] }), taskQueue, priority: r.priority });
    ids.push({ label: r.label, id: workflowId });
  }
  const { worker } = await createAgentWorker({
    connection,
    client,
    taskQueue,
    model: { apiKey: 'test-key', baseURL: model.url },
    maxWorkflowTasks: 2,
    workflowPollers: 2,
  });
  await worker.runUntil(Promise.all(ids.map(({ id }) => getAgentResult(client, id))));
  const started = await Promise.all(
    ids.map(async ({ label, id }) => {
      const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
      const first = events.find((e) => e.workflowTaskStartedEventAttributes)!;
      return { label, at: Number(first.eventTime!.seconds) * 1e9 + (first.eventTime!.nanos ?? 0) };
    }),
  );
  return started.sort((a, b) => a.at - b.at).map((s) => s.label);
}

describe('dispatch order on a server with the priority matcher and fairness on', () => {
  it('a priority-1 run started after six priority-5 runs is dispatched first', async () => {
    const low = Array.from({ length: 6 }, (_, i) => ({ label: `low-${i}`, priority: { priorityKey: 5 } }));
    const order = await dispatchOrder([...low, { label: 'urgent', priority: { priorityKey: 1 } }]);
    // First come, first served would put it last. (Among equal priorities the order of two tasks started by two
    // pollers in the same instant is not the test's business.)
    expect(order[0]).toBe('urgent');
    expect(order.slice(1).sort()).toEqual(low.map((l) => l.label));
  });

  it("a tenant with two runs started after another tenant's eight is not served last", async () => {
    const a = Array.from({ length: 8 }, (_, i) => ({ label: `a-${i}`, priority: { fairnessKey: 'tenant-a' } }));
    const b = Array.from({ length: 2 }, (_, i) => ({ label: `b-${i}`, priority: { fairnessKey: 'tenant-b' } }));
    const order = await dispatchOrder([...a, ...b]);
    // Turn about while both have runs waiting, so both of b's are among the first four dispatched (first come, first
    // served: b-0 and b-1 last). Which of a's runs goes between them is not fixed.
    expect(order.slice(0, 4).filter((label) => label.startsWith('b-')).sort()).toEqual(['b-0', 'b-1']);
  });
});
