import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { it } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../src/client/index.js';
import { startDevServer } from '../src/devserver/index.js';
import { reply, startScriptedModel, text, toolUse } from '../src/scripted/index.js';
import { createAgentWorker } from '../src/worker.js';
Runtime.install({ logger: new DefaultLogger('ERROR') });
const N = Number(process.env.N ?? 100);
const SA = process.env.SA !== '0';
const ticks = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
it('cpu', async () => {
  const server = await startDevServer({ uiPort: false });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const model = await startScriptedModel({ script: (_r, turn) => ({ ...(turn < 9 ? reply([toolUse('calculator', { expression: `${turn}+1` })]) : reply([text('done')])), delayMs: 200 }) });
  const q = `ev-${randomUUID()}`;
  const { worker, transcripts } = await createAgentWorker({ connection, client, taskQueue: q, model: { apiKey: 'b', baseURL: model.url } });
  const bare = await Worker.create({ connection, taskQueue: q + 'bare', workflowBundle: await bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('./bare-workflow.ts', import.meta.url)), logger: new DefaultLogger('ERROR') }), activities: { bareModel: (ms: number) => new Promise((r) => setTimeout(r, ms)), bareTool: async () => {} } });
  const measure = async (label: string, fn: () => Promise<unknown>) => {
    const c0 = process.cpuUsage(); const s0 = ticks(server.process.pid!); const t0 = Date.now();
    await fn();
    const c = process.cpuUsage(c0); const s = ticks(server.process.pid!) - s0;
    console.log(`${label}: wall ${Date.now() - t0} ms, this process cpu ${Math.round((c.user + c.system) / 1000)} ms, server cpu ${s} ms`);
  };
  await worker.runUntil(bare.runUntil(async () => {
    const ours = () => Promise.all(Array.from({ length: N }, async () => { const { workflowId } = await startAgent(client, { task: 'bench', settings: defaultSettings({ tools: ['calculator'], maxSteps: 15, promptCaching: false, searchAttributes: SA }), taskQueue: q }); await getAgentResult(client, workflowId); }));
    const bareRun = () => Promise.all(Array.from({ length: N }, () => client.workflow.execute('bareAgentWorkflow', { taskQueue: q + 'bare', workflowId: `bare-${randomUUID()}`, args: [10, 200] })));
    await measure('warm bare', () => bareRun()); await measure('warm ours', () => ours());
    await measure('bare', bareRun); await measure('ours', ours);
    await measure('bare', bareRun); await measure('ours', ours);
    console.log(JSON.stringify(transcripts.stats));
  }));
  await model.close(); await server.stop();
}, 600000);
