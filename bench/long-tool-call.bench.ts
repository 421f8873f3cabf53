// Soak (g): a tool call far past the old 5-minute cap. A tool defined with `timeout: '10m'` runs 330 s (longer than
// the 300 s every call was capped at before) and must complete in ONE attempt, its result reaching the model.
// Not part of `npm test` (it waits five and a half minutes): `npm run bench -- --only bench/long-tool-call.bench.ts`.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { expect, it } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../src/client/index.js';
import { startDevServer } from '../src/devserver/index.js';
import { reply, startScriptedModel, text, toolUse, type MessagesRequestBody } from '../src/scripted/index.js';
import { defineTool, type AgentTool } from '../src/tools/types.js';
import { createAgentWorker } from '../src/worker/worker.js';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const RUNS_FOR_MS = Number(process.env.BENCH_TOOL_MS ?? 330_000);

it(`a tool with timeout '10m' that runs ${RUNS_FOR_MS / 1000} s completes in one attempt`, { timeout: RUNS_FOR_MS + 120_000 }, async () => {
  const server = await startDevServer({ uiPort: false });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const build = defineTool({
    name: 'slow_build',
    description: 'A build that takes minutes.',
    inputSchema: { type: 'object', properties: {} },
    timeout: '10m',
    execute: async (_input, { progress, signal }) => {
      const started = Date.now();
      while (Date.now() - started < RUNS_FOR_MS) {
        if (signal.aborted) throw new Error('aborted');
        progress(`building: ${Math.round((Date.now() - started) / 1000)} s`, (Date.now() - started) / RUNS_FOR_MS);
        await new Promise((r) => setTimeout(r, 5_000));
      }
      return `build passed after ${Math.round((Date.now() - started) / 1000)} s`;
    },
  });
  const model = await startScriptedModel({
    script: (body: MessagesRequestBody) => {
      if (body.messages.length === 1) return reply([toolUse('slow_build', {})]);
      const [result] = body.messages[body.messages.length - 1].content as Array<{ content: unknown; is_error?: boolean }>;
      return reply([text(`${result.is_error ? 'FAILED: ' : ''}${String(result.content)}`)]);
    },
  });
  try {
    const taskQueue = `soak-${randomUUID()}`;
    const { worker } = await createAgentWorker({ connection, client, taskQueue, tools: [build as AgentTool], model: { apiKey: 'soak', baseURL: model.url } });
    const started = Date.now();
    const result = await worker.runUntil(async () => {
      const { workflowId } = await startAgent(client, { task: 'build it', settings: defaultSettings({ tools: ['slow_build'] }), taskQueue });
      return getAgentResult(client, workflowId);
    });
    const history = await client.workflow.getHandle(result.workflowId).fetchHistory();
    const attempts = (history.events ?? []).flatMap((e) => {
      const s = e.activityTaskStartedEventAttributes;
      return s ? [s.attempt ?? 1] : [];
    });
    const toolAttempts = attempts[2]; // describeTools, callModel, runTool, callModel
    console.log(
      `(g) long tool call: ${((Date.now() - started) / 1000).toFixed(1)} s wall, tool attempts ${toolAttempts}, ` +
        `result "${result.text}", status ${result.status}`,
    );
    expect(result.status).toBe('completed');
    expect(result.text).toMatch(/^build passed after \d+ s$/);
    expect(toolAttempts).toBe(1);
  } finally {
    await model.close();
    await client.connection.close();
    await connection.close();
    await server.stop();
  }
});
