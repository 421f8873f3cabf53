import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { it } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../src/client/index.js';
import { startDevServer } from '../src/devserver/index.js';
import { reply, startScriptedModel, text, toolUse } from '../src/scripted/index.js';
import { createAgentWorker } from '../src/worker.js';
Runtime.install({ logger: new DefaultLogger('ERROR') });
it('events', async () => {
  const server = await startDevServer({ uiPort: false });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const model = await startScriptedModel({ script: (_r, turn) => ({ ...(turn < 9 ? reply([toolUse('calculator', { expression: `${turn}+1` })]) : reply([text('done')])), delayMs: 200 }) });
  const q = `ev-${randomUUID()}`;
  const { worker } = await createAgentWorker({ connection, client, taskQueue: q, model: { apiKey: 'b', baseURL: model.url } });
  const bare = await Worker.create({ connection, taskQueue: q + 'bare', workflowBundle: await bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('./bare-workflow.ts', import.meta.url)), logger: new DefaultLogger('ERROR') }), activities: { bareModel: (ms: number) => new Promise((r) => setTimeout(r, ms)), bareTool: async () => {} } });
  await worker.runUntil(bare.runUntil(async () => {
    const { workflowId } = await startAgent(client, { task: 'bench', settings: defaultSettings({ tools: ['calculator'], maxSteps: 15, promptCaching: false }), taskQueue: q });
    await getAgentResult(client, workflowId);
    const bid = `bare-${randomUUID()}`;
    await client.workflow.execute('bareAgentWorkflow', { taskQueue: q + 'bare', workflowId: bid, args: [10, 200] });
    for (const id of [workflowId, bid]) {
      const h = await client.workflow.getHandle(id).fetchHistory();
      const counts: Record<string, number> = {};
      for (const e of h.events ?? []) { const t = temporal.api.enums.v1.EventType[e.eventType!]; counts[t] = (counts[t] ?? 0) + 1; }
      const d = await client.workflow.getHandle(id).describe();
      console.log(id, d.historyLength, d.historySize, JSON.stringify(counts, null, 1));
    }
  }));
  await model.close(); await server.stop();
}, 120000);
