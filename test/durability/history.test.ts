// History must grow linearly: each message stored once, the model activity reading the transcript by
// reference (the cache the workflow shares it into, else a paged query), continue-as-new carrying the state once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { defaultSettings, getAgentResult, getStatus, getTranscript, startAgent } from '../../src/client/index.js';
import { startDevServer, type DevServer } from '../../src/devserver/index.js';
import type { MessagesRequestBody } from '../../src/scripted/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { defineTool } from '../../src/tools/types.js';
import { calculator } from '../../src/tools/calculator.js';
import { useSharedAgent, useTestEnv, withAgent, type TestEnv } from '../helpers/harness.js';

// The last test's own server (a lowered history-length threshold), started with the file so that it is ready when
// that test comes, instead of the test waiting for it to start; stopped with the file.
let suggestingServer: Promise<DevServer> | undefined;
beforeAll(() => {
  suggestingServer = startDevServer({
    uiPort: false,
    extraArgs: ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=30'],
  });
  suggestingServer.catch(() => {}); // reported by the test that awaits it
});
afterAll(async () => {
  await (await suggestingServer?.catch(() => undefined))?.stop();
});
const env = useTestEnv();
// One worker for the tests that need none of their own (a pinned identity, a small workflow cache, another server).
const agents = useSharedAgent(env);

/** What a cache's `stats` count from now on: the shared worker's caches also counted the file's earlier tests. */
function countFromNow<S extends object>(stats: S): () => S {
  const now = stats as unknown as Record<string, number>;
  const start = { ...now };
  return () => Object.fromEntries(Object.keys(start).map((k) => [k, now[k] - start[k]])) as S;
}

/** `turns` tool turns, each with `bytes` of model text, then an answer. */
const longJob = (turns: number, bytes: number) => (_req: MessagesRequestBody, turn: number) =>
  turn < turns
    ? reply([text(`Turn ${turn}: ${'x'.repeat(bytes)}`), toolUse('calculator', { expression: `${turn} * 2` })])
    : reply([text(`Done after ${turns} turns.`)]);

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('history size', () => {
  it('grows linearly: 64 turns of 4 KB model output stay under 2x the content they hold', async () => {
    const TURNS = 64;
    const BYTES = 4096;
    await agents.with({ script: longJob(TURNS, BYTES) }, async ({ run, env, agent }) => {
      const transcriptStats = countFromNow(agent.transcripts.stats);
      const result = await run('a long job', { maxSteps: 100 });
      expect(result).toMatchObject({ status: 'completed', steps: TURNS + 1, toolCalls: TURNS });
      const description = await env.client.workflow.getHandle(result.workflowId).describe();
      const historyBytes = description.historySize!;
      const transcript = await getTranscript(env.client, result.workflowId);
      const contentBytes = jsonBytes(transcript);
      const perTurn = Math.round(historyBytes / TURNS);
      console.info(
        `[linear history] ${TURNS} turns × ${BYTES} B: history ${historyBytes} B, content ${contentBytes} B, ` +
          `ratio ${(historyBytes / contentBytes).toFixed(2)}, ${perTurn} B/turn; passing the messages to every ` +
          `model call would store about ${Math.round((TURNS * TURNS * BYTES) / 2 / 1e6)} MB`,
      );
      expect(historyBytes).toBeLessThan(2 * contentBytes);
      // The workflow shared each message once with this worker's cache, just before the model call that
      // needed it: every model call found its whole transcript there, and none made a query.
      expect(transcriptStats()).toMatchObject({ cacheHits: TURNS + 1, queries: 0, sharedMessages: 2 * TURNS + 1 });
    });
  }, 120_000);
});

describe('settings stored once', () => {
  it('a 40-turn run with a 16 KB system prompt and 4 KB of model output per turn stores at most 1.5x its content', async () => {
    const TURNS = 40;
    const BYTES = 4096;
    const system = `You are a careful assistant. ${'Follow the house rules. '.repeat(700)}`.slice(0, 16_384);
    // Temporal stores the worker's identity (default `<pid>@<hostname>`) in every task event: pinned, so the figure
    // is the design's, not the machine's. It is 11 characters here; with a 35-character identity the same run
    // stores 1.54x (the per-event framing, not the settings: see BENCHMARKS.md (c)).
    const identity = process.env.HISTORY_IDENTITY ?? 'worker@host';
    await withAgent(env, { script: longJob(TURNS, BYTES), workerOptions: { identity } }, async ({ run, env, agent, model }) => {
      const result = await run('a long job', { maxSteps: 100, system });
      expect(result).toMatchObject({ status: 'completed', steps: TURNS + 1 });
      const historyBytes = (await env.client.workflow.getHandle(result.workflowId).describe()).historySize!;
      // The content: the transcript, and the system prompt counted once.
      const contentBytes = jsonBytes(await getTranscript(env.client, result.workflowId)) + system.length;
      const ratio = historyBytes / contentBytes;
      console.info(`[settings once] ${TURNS} turns, 16 KB system prompt: history ${historyBytes} B, content ${contentBytes} B, ratio ${ratio.toFixed(2)}`);
      expect(ratio).toBeLessThanOrEqual(1.5);
      // Every request still carried the system prompt; the worker's cache had it each time, without a query.
      const bodies = model.requests.filter((r) => r.status === 200).map((r) => r.body as MessagesRequestBody);
      expect(bodies).toHaveLength(TURNS + 1);
      for (const body of bodies) expect(body.system).toBe(system);
      expect(agent.modelSettings.stats).toEqual({ cacheHits: TURNS + 1, queries: 0 });
    });
  }, 120_000);

  it('a model call whose worker lost the settings reads them by query and sends the same request', async () => {
    const script = longJob(3, 10);
    const settings = { maxSteps: 10, tools: ['calculator'], system: 'Be brief.', effort: 'low' as const };
    const reference = await agents.with({ script }, async ({ run, model }) => {
      await run('three turns', settings);
      return model.requests.filter((r) => r.status === 200).map((r) => r.body);
    });
    let clear: () => void = () => undefined;
    // Runs as each turn's tool, between two model calls: the next call finds no settings in the cache.
    const clearing = defineTool<{ expression: string }>({
      ...calculator,
      async execute(input, ctx) {
        clear();
        return calculator.execute(input, ctx);
      },
    });
    await agents.with({ script, tools: [clearing] }, async ({ run, model, agent }) => {
      clear = () => agent.modelSettings.clear();
      const settingsStats = countFromNow(agent.modelSettings.stats);
      const result = await run('three turns', settings);
      expect(result.status).toBe('completed');
      expect(model.requests.filter((r) => r.status === 200).map((r) => r.body)).toEqual(reference);
      // The first call found what the workflow shared; the three after a tool call asked the run.
      expect(settingsStats()).toEqual({ cacheHits: 1, queries: 3 });
    });
  });
});

describe('transcript cache fallback', () => {
  it('a model call on a worker whose cache was cleared reads the transcript by query and sends the same request', async () => {
    const script = longJob(3, 100);
    // Reference: the requests of an uninterrupted run.
    const reference = await agents.with({ script }, async ({ run, model }) => {
      await run('three turns', { maxSteps: 10, tools: ['calculator'] });
      return model.requests.filter((r) => r.status === 200).map((r) => r.body);
    });
    let clear: () => void = () => undefined;
    // Runs as the turn-1 tool, between two model calls: the next call finds an empty cache.
    const clearing = defineTool<{ expression: string }>({
      ...calculator,
      async execute(input, ctx) {
        if (input.expression === '1 * 2') clear();
        return calculator.execute(input, ctx);
      },
    });
    await agents.with({ script, tools: [clearing] }, async ({ run, model, agent }) => {
      clear = () => agent.transcripts.clear();
      const transcriptStats = countFromNow(agent.transcripts.stats);
      const result = await run('three turns', { maxSteps: 10, tools: ['calculator'] });
      expect(result.status).toBe('completed');
      const stats = transcriptStats();
      // Calls 1, 2 and 4 found what the workflow had shared. Call 3: the cache had lost the first three
      // messages, so the newest two, shared, would have left a gap: the whole transcript came by query.
      expect(stats).toMatchObject({ cacheHits: 3, queries: 1, queriedMessages: 5 });
      expect(model.requests.filter((r) => r.status === 200).map((r) => r.body)).toEqual(reference);
    });
  });
});

describe('transcript sharing under workflow cache eviction', () => {
  it('with a workflow cache smaller than the runs in flight, each model call gets its own run\'s transcript, without a query', async () => {
    const RUNS = 6;
    const TURNS = 4;
    // Two cached workflows for six concurrent runs: most workflow tasks replay their run from history first.
    await withAgent(env, { script: longJob(TURNS, 20), workerOptions: { maxCachedWorkflows: 2, maxConcurrentWorkflowTaskExecutions: 2 } }, async ({ run, model, agent }) => {
      const results = await Promise.all(Array.from({ length: RUNS }, (_, i) => run(`run ${i}`, { maxSteps: 10, tools: ['calculator'], promptCaching: false })));
      expect(results.map((r) => r.status)).toEqual(Array(RUNS).fill('completed'));
      const bodies = model.requests.filter((r) => r.status === 200).map((r) => r.body as MessagesRequestBody);
      for (let i = 0; i < RUNS; i++) {
        const ofRun = bodies.filter((b) => JSON.stringify(b.messages[0].content).includes(`run ${i}`));
        // One conversation per run, each request extending the previous one.
        expect(ofRun.map((b) => b.messages.length)).toEqual([1, 3, 5, 7, 9]);
        // (prompt caching off: no cache_control marker moves from one request to the next)
        for (let k = 1; k < ofRun.length; k++) expect(ofRun[k].messages.slice(0, ofRun[k - 1].messages.length)).toEqual(ofRun[k - 1].messages);
      }
      // A replayed workflow shares nothing while replaying; its first live model call shares the whole transcript.
      expect(agent.transcripts.stats).toMatchObject({ cacheHits: RUNS * (TURNS + 1), queries: 0 });
    });
  });
});

describe('continue-as-new', () => {
  it('at a configured step count, carries transcript and guard state; id, result and transcript are unchanged', async () => {
    const script = longJob(5, 50);
    await agents.with({ script }, async ({ run, env, agent, model }) => {
      const transcriptStats = countFromNow(agent.transcripts.stats);
      const result = await run('five turns', { maxSteps: 20, continueAsNewAfterSteps: 2 });
      expect(result).toMatchObject({ status: 'completed', steps: 6, toolCalls: 5, runsUsed: 3 });
      expect(result.text).toBe('Done after 5 turns.');
      const transcript = await getTranscript(env.client, result.workflowId);
      expect(transcript).toHaveLength(12); // task + 5 × (assistant, results) + answer
      const status = await getStatus(env.client, result.workflowId);
      expect(status.view?.runsUsed).toBe(3);
      // Each new run shares its carried transcript under its own run id before its first call: no query.
      expect(transcriptStats()).toMatchObject({ cacheHits: 6, queries: 0 });
      // The model saw one continuous conversation: each request extends the previous one.
      const bodies = model.requests.filter((r) => r.status === 200).map((r) => (r.body as MessagesRequestBody).messages.length);
      expect(bodies).toEqual([1, 3, 5, 7, 9, 11]);
    });
  });

  it('when the server suggests it (history-length threshold lowered), without any configured step count', async () => {
    let own: TestEnv | undefined;
    try {
      const server = await suggestingServer!;
      const connection = await NativeConnection.connect({ address: server.address });
      const client = new Client({ connection: await Connection.connect({ address: server.address }) });
      own = { client, connection, close: async () => (await client.connection.close(), await connection.close()) };
      await withAgent(own, { script: longJob(8, 50) }, async ({ taskQueue, env }) => {
        const started = await startAgent(env.client, {
          task: 'eight turns',
          settings: defaultSettings({ tools: ['calculator', 'web_search'], maxSteps: 20 }),
          taskQueue,
        });
        const result = await getAgentResult(env.client, started.workflowId);
        expect(result).toMatchObject({ status: 'completed', steps: 9, toolCalls: 8 });
        expect(result.runsUsed).toBeGreaterThan(1);
        expect(await getTranscript(env.client, started.workflowId)).toHaveLength(18);
      });
    } finally {
      await own?.close();
    }
  });
});
