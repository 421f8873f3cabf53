// Per-turn time and a fleet of concurrent agents on ONE worker process, each against its floor, in one run so
// that machine noise cancels:
//   (a) per turn: ours (0 ms scripted model + calculator) / the bare shape's two no-op activity round trips /
//       the same loop in-process without Temporal (the zero-durability floor);
//   (b) N concurrent agents of 10 turns with a 200 ms model / the bare shape (a workflow calling a 200 ms
//       activity and a no-op activity per turn): wall time against the ideal (10 × 200 ms), turns per second,
//       peak RSS of this process (the worker, the client and the scripted model live in it).
// `npm run bench` (BENCH_FLEET=10,100 to skip the 1,000 case; BENCH_JSON=file to write the figures).
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { it } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../src/client/index.js';
import { startDevServer } from '../src/devserver/index.js';
import { reply, startScriptedModel, text, toolUse } from '../src/scripted/index.js';
import { calculator } from '../src/tools/calculator.js';
import { createAgentWorker } from '../src/worker.js';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const PER_TURN_TURNS = 20;
const PER_TURN_REPEATS = 3;
const FLEET_TURNS = 10;
const MODEL_MS = 200;
const FLEET = (process.env.BENCH_FLEET ?? '10,100,1000').split(',').map(Number);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n: number, d = 1) => n.toFixed(d);

/** Peak RSS while `fn` runs, sampled every 100 ms. */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ value: T; peakRssMb: number; wallMs: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  const t0 = Date.now();
  try {
    const value = await fn();
    return { value, peakRssMb: Math.max(peak, process.memoryUsage().rss) / 2 ** 20, wallMs: Date.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

it('per-turn time and a fleet of agents on one worker, against the bare shape', async () => {
  const server = await startDevServer({ uiPort: false });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const figures: Record<string, unknown> = { machine: { cpus: (await import('node:os')).cpus().length } };
  const fleetModelMs = { value: 0 };
  const model = await startScriptedModel({
    script: (_req, turn) => ({
      ...(turn < (fleetModelMs.value ? FLEET_TURNS : PER_TURN_TURNS) - 1
        ? reply([toolUse('calculator', { expression: `${turn}+1` })])
        : reply([text('done')])),
      delayMs: fleetModelMs.value,
    }),
  });
  const oursQueue = `bench-ours-${randomUUID()}`;
  const bareQueue = `bench-bare-${randomUUID()}`;
  const { worker: ours } = await createAgentWorker({ connection, client, taskQueue: oursQueue, model: { apiKey: 'bench', baseURL: model.url } });
  const bare = await Worker.create({
    connection,
    taskQueue: bareQueue,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./bare-workflow.ts', import.meta.url)),
      logger: new DefaultLogger('ERROR'),
    }),
    activities: { bareModel: (ms: number) => sleep(ms), bareTool: async () => {} },
  });
  const runOurs = async (turns: number) => {
    const { workflowId } = await startAgent(client, {
      task: 'bench',
      settings: defaultSettings({ tools: ['calculator'], maxSteps: turns + 5, promptCaching: false }),
      taskQueue: oursQueue,
    });
    const result = await getAgentResult(client, workflowId);
    if (result.status !== 'completed' || result.steps !== turns) throw new Error(`bench run ended early: ${JSON.stringify(result)}`);
  };
  const runBare = (turns: number, modelMs: number) =>
    client.workflow.execute('bareAgentWorkflow', { taskQueue: bareQueue, workflowId: `bare-${randomUUID()}`, args: [turns, modelMs] });
  const anthropic = new Anthropic({ apiKey: 'bench', baseURL: model.url, maxRetries: 0 });
  const runInProcess = async (turns: number) => {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'bench' }];
    for (let i = 0; i < turns; i++) {
      const m = await anthropic.messages
        .stream({ model: 'claude-sonnet-5-5', max_tokens: 4096, messages, tools: [{ name: 'calculator', description: calculator.description, input_schema: calculator.inputSchema as Anthropic.Tool.InputSchema }] })
        .finalMessage();
      messages.push({ role: 'assistant', content: m.content });
      const use = m.content.find((b) => b.type === 'tool_use');
      if (!use) break;
      const out = await calculator.execute(use.input as never, {} as never);
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: String(out) }] });
    }
  };
  const time = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  const lines: string[] = [];
  try {
    await Promise.all([
      ours.runUntil(async () => {
        await bare.runUntil(async () => {
          // (a) per-turn time, interleaved repeats (warm-up run first).
          await runOurs(PER_TURN_TURNS);
          await runBare(PER_TURN_TURNS, 0);
          const t = { ours: [] as number[], bare: [] as number[], inProcess: [] as number[] };
          for (let i = 0; i < PER_TURN_REPEATS; i++) {
            t.ours.push((await time(() => runOurs(PER_TURN_TURNS))) / PER_TURN_TURNS);
            t.bare.push((await time(() => runBare(PER_TURN_TURNS, 0))) / PER_TURN_TURNS);
            t.inProcess.push((await time(() => runInProcess(PER_TURN_TURNS))) / PER_TURN_TURNS);
          }
          const perTurn = { oursMs: median(t.ours), bareMs: median(t.bare), inProcessMs: median(t.inProcess) };
          figures.perTurn = { ...perTurn, turns: PER_TURN_TURNS, repeats: PER_TURN_REPEATS, oursOverBare: perTurn.oursMs / perTurn.bareMs };
          lines.push(
            `\n(a) Per-turn time, ${PER_TURN_TURNS}-turn runs, 0 ms scripted model, median of ${PER_TURN_REPEATS}`,
            `ours (ms/turn) | bare: 2 no-op activities (ms/turn) | in-process, no Temporal (ms/turn) | ours/bare | ours/in-process`,
            `${fmt(perTurn.oursMs).padStart(14)} | ${fmt(perTurn.bareMs).padStart(34)} | ${fmt(perTurn.inProcessMs, 2).padStart(33)} | ${fmt(perTurn.oursMs / perTurn.bareMs, 2).padStart(9)} | ${fmt(perTurn.oursMs / perTurn.inProcessMs, 0).padStart(14)}`,
          );
          console.log(lines.slice(-3).join('\n'));

          // (b) the fleet.
          fleetModelMs.value = MODEL_MS;
          const idealMs = FLEET_TURNS * MODEL_MS;
          const fleet: unknown[] = [];
          lines.push(
            `\n(b) N concurrent agents of ${FLEET_TURNS} turns, ${MODEL_MS} ms model, one worker process (ideal ${idealMs} ms)`,
            `    N | bare wall (s) | ours wall (s) | ours/bare | bare turns/s | ours turns/s | bare wall/ideal | ours wall/ideal | peak RSS bare / ours (MB) | failed`,
          );
          for (const n of FLEET) {
            const b = await withPeakRss(() => Promise.allSettled(Array.from({ length: n }, () => runBare(FLEET_TURNS, MODEL_MS))));
            const o = await withPeakRss(() => Promise.allSettled(Array.from({ length: n }, () => runOurs(FLEET_TURNS))));
            const failedOurs = o.value.filter((r) => r.status === 'rejected');
            const failedBare = b.value.filter((r) => r.status === 'rejected').length;
            if (failedOurs.length) console.log(`ours, ${n}: ${failedOurs.length} failed, first: ${String((failedOurs[0] as PromiseRejectedResult).reason)}`);
            const row = {
              n,
              bareWallMs: b.wallMs,
              oursWallMs: o.wallMs,
              ratio: o.wallMs / b.wallMs,
              bareTurnsPerSec: (n * FLEET_TURNS) / (b.wallMs / 1000),
              oursTurnsPerSec: (n * FLEET_TURNS) / (o.wallMs / 1000),
              bareOverIdeal: b.wallMs / idealMs,
              oursOverIdeal: o.wallMs / idealMs,
              bareRssMb: b.peakRssMb,
              oursRssMb: o.peakRssMb,
              failedOurs: failedOurs.length,
              failedBare,
            };
            fleet.push(row);
            lines.push(
              `${String(n).padStart(5)} | ${fmt(row.bareWallMs / 1000).padStart(13)} | ${fmt(row.oursWallMs / 1000).padStart(13)} | ${fmt(row.ratio, 2).padStart(9)} | ` +
                `${fmt(row.bareTurnsPerSec).padStart(12)} | ${fmt(row.oursTurnsPerSec).padStart(12)} | ${fmt(row.bareOverIdeal, 2).padStart(15)} | ${fmt(row.oursOverIdeal, 2).padStart(15)} | ` +
                `${`${fmt(row.bareRssMb, 0)} / ${fmt(row.oursRssMb, 0)}`.padStart(25)} | ${failedBare} / ${failedOurs.length}`,
            );
            console.log(lines.at(-1));
          }
          figures.fleet = fleet;
        });
      }),
    ]);
  } finally {
    await model.close();
    await client.connection.close();
    await connection.close();
    await server.stop();
  }
  console.log(lines.join('\n') + '\n');
  const file = process.env.BENCH_JSON;
  if (file) {
    const all = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    writeFileSync(file, JSON.stringify({ ...all, ...figures }, null, 2));
  }
}, 1_200_000);
