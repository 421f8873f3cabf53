// How long a job can run: turns and tokens of conversation completed against a Messages API stand-in that
// enforces a 40,000-token context window (a longer prompt is a 400), 8 KB of tool result per turn, with
// server-side compaction (the default), with client-side compaction (a stand-in that refuses the parameter),
// and without compaction.
//   npx vitest run -c vitest.bench.config.ts bench/long-job.bench.ts   (or npm run bench; BENCH_JSON=file merges the figures)
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { it } from 'vitest';
import { defaultSettings, getAgentResult, getTranscript, startAgent } from '../src/client/index.js';
import type { AgentSettings } from '../src/core/types.js';
import { startDevServer } from '../src/devserver/index.js';
import { promptTokens } from '../src/scripted/prompt-cache.js';
import { reply, startScriptedModel, text, toolUse, type MessagesRequestBody } from '../src/scripted/index.js';
import { defineTool } from '../src/tools/types.js';
import { createAgentWorker } from '../src/worker/worker.js';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const WINDOW = 40_000;
const TURNS = Number(process.env.BENCH_LONG_TURNS ?? 200);
const page = (n: number) => `page ${n}: ${'lorem ipsum dolor sit amet '.repeat(303)}`.slice(0, 8192);
const readPage = defineTool<{ n: number }>({
  name: 'read_page',
  description: 'Reads page n of the document.',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  async execute({ n }) {
    return page(n);
  },
});

it('how long a job can run against a 40k-token window, with and without compaction', async () => {
  const server = await startDevServer({ uiPort: false });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const cases: Array<{ name: string; settings: Partial<AgentSettings>; compaction?: boolean }> = [
    { name: 'server-side compaction', settings: { compactAt: 30_000 } },
    { name: 'client-side compaction', settings: { compactAt: 30_000 }, compaction: false },
    { name: 'no compaction', settings: { compaction: false } },
  ];
  const figures: unknown[] = [];
  const rows: string[] = [];
  try {
    for (const c of cases) {
      const model = await startScriptedModel({
        script: (_req: MessagesRequestBody, turn: number) =>
          turn < TURNS ? reply([text(`Reading page ${turn}.`), toolUse('read_page', { n: turn })]) : reply([text('Done.')]),
        contextWindow: WINDOW,
        ...(c.compaction === false ? { compaction: false } : {}),
      });
      const taskQueue = `bench-long-${randomUUID()}`;
      const { worker } = await createAgentWorker({ connection, client, taskQueue, tools: [readPage], model: { apiKey: 'bench', baseURL: model.url } });
      const started = Date.now();
      const figure = await worker.runUntil(async () => {
        const settings = defaultSettings({ tools: ['read_page'], maxSteps: 2 * TURNS + 10, ...c.settings });
        const { workflowId } = await startAgent(client, { task: 'read the whole document', settings, taskQueue });
        const result = await getAgentResult(client, workflowId);
        const transcript = await getTranscript(client, workflowId);
        const bodies = model.requests.filter((r) => r.status === 200).map((r) => r.body as MessagesRequestBody);
        return {
          case: c.name,
          status: result.status,
          turns: result.toolCalls,
          conversationTokens: promptTokens({ model: 'm', max_tokens: 1, messages: transcript } as MessagesRequestBody),
          largestRequestTokens: Math.max(...bodies.map(promptTokens)),
          modelCalls: result.steps,
          historyBytes: (await client.workflow.getHandle(workflowId).describe()).historySize!,
          seconds: (Date.now() - started) / 1000,
          error: result.error,
        };
      });
      await model.close();
      figures.push(figure);
      rows.push(
        `${figure.case.padEnd(23)} | ${figure.status.padEnd(9)} | ${String(figure.turns).padStart(5)} | ${figure.conversationTokens.toLocaleString('en-US').padStart(12)} | ` +
          `${figure.largestRequestTokens.toLocaleString('en-US').padStart(14)} | ${String(figure.modelCalls).padStart(11)} | ${(figure.historyBytes / 1e6).toFixed(2).padStart(8)} MB`,
      );
    }
  } finally {
    await client.connection.close();
    await connection.close();
    await server.stop();
  }
  console.log(
    `\n(f) How long a job can run: a 40,000-token window, 8 KB of tool result per turn, up to ${TURNS} turns (compaction at 30,000)\n` +
      `case                    | status    | turns | conversation | largest request | model calls | history\n${rows.join('\n')}\n`,
  );
  const file = process.env.BENCH_JSON;
  if (file) {
    const all = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    writeFileSync(file, JSON.stringify({ ...all, longJob: figures }, null, 2));
  }
}, 900_000);
