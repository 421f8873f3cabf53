// Per-turn time and a fleet of concurrent agents on ONE worker process, each against its floor, in one run so
// that machine noise cancels:
//   (a) per turn: ours (0 ms scripted model + calculator; with the calculator `fast: true`; with `localModelCalls`, alone and with the fast calculator) / the bare shape's
//       two no-op activity round trips (and whose 'model' activity makes ours's streamed HTTP call: bare+HTTP), on the
//       embedded server's configuration, and the bare shape on a server
//       with the CLI's defaults / the same loop in-process without Temporal (the zero-durability floor); with each
//       shape's history event timeline;
//   (b) N concurrent agents of 10 turns with a 200 ms model / the bare shape (a workflow calling a 200 ms
//       activity and a no-op activity per turn), and / the bare shape whose 'model' activity makes the same
//       streamed HTTP call to the scripted model as ours: wall time against the ideal (10 × 200 ms), turns per second,
//       the worker process's own peak RSS, and workflow task latency (scheduled → completed, from the histories
//       of a sample of runs); and ours with the calculator `fast: true` (its calls local activities) / the bare shape;
//       with, for each fleet, each worker thread's share of a core, this process's own CPU, and what the server did per
//       turn (its Prometheus counters, bench/server-metrics.ts).
// Each worker runs in a process of its own (bench/worker-process.mjs, the built package): a fresh one per shape
// and N, so its peak RSS (VmHWM) is that case's alone; the client, the scripted model and the dev server stay
// in this process. `npm run bench` (10 and 100 agents; BENCH_FLEET=1000 (`npm run bench:fleet`) for the 1,000 case, BENCH_FLEET=0 for (a) alone; BENCH_FLEET_REPEATS=3 for the median
// of 3 interleaved repeats of each; BENCH_FLEET_HTTP=10,100,1000 for the sizes that also run bare+HTTP, default 10
// and 100; BENCH_FLEET_FAST=10,100,1000 for the sizes that also run ours with a fast tool, default 10 and 100; BENCH_CPU_PROF=dir for the workers' CPU profiles; BENCH_JSON=file to write the figures;
// BENCH_OURS_BEFORE_BUNDLE=file to run another build of the agent's workflow bundle too, side by side;
// BENCH_OURS_BEFORE_WORKER=file to run, as that same 'ours-before' shape, another build's whole worker (the
// bench/worker-process.mjs of another checkout, next to its own dist/ and node_modules/): activities included;
// BENCH_FLEET_LOCAL=10,100,1000 for the sizes that also run ours with local model calls (`localModelCalls`), default 10 and 100;
// BENCH_SIZING='{"maxCachedWorkflows":50}' to size both workers otherwise than the agent's defaults;
// BENCH_LOCAL_SIZING='{"maxWorkflowTasks":1000}' to size the local-model-calls worker otherwise (on top of BENCH_SIZING);
// BENCH_PER_TURN=0 to skip (a)).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { it } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../src/client/index.js';
import { EMBEDDED_SERVER_DYNAMIC_CONFIG, startDevServer } from '../src/devserver/index.js';
import { reply, startScriptedModel, text, toolUse } from '../src/scripted/index.js';
import { calculator } from '../src/tools/calculator.js';
import { agentWorkerSizing, type SizingWorkerOptions, type WorkerSizing } from '../src/worker/worker-sizing.js';
import { startWorkerProcess } from '../test/helpers/worker-process.js';
import { workflowTaskLatency } from './workflow-task-latency.js';
import { historyGaps, median, medianGaps } from './history-gaps.js';
import { cpuMs, threadCpuMs, threadShares, workerMemory, type WorkerMemory } from './worker-memory.js';
import { largestDifferences, perTurn as countersPerTurn, readServerCounters } from './server-metrics.js';

const WORKER_PROCESS = fileURLToPath(new URL('./worker-process.mjs', import.meta.url));
/** Histories read per shape and N for the workflow task latency. */
const LATENCY_SAMPLE = 20;
const PER_TURN_TURNS = 20;
/** (a)'s interleaved repeats, the median reported: BENCH_PER_TURN_REPEATS (default 3; more on a loaded machine). */
const PER_TURN_REPEATS = Number(process.env.BENCH_PER_TURN_REPEATS || '3');
const FLEET_TURNS = 10;
const MODEL_MS = 200;
/** The fleet sizes: 1,000 agents is `npm run bench:fleet` (the median of 3 repeats: 20 minutes and more on 2 cores,
 * twice what all the rest of `npm run bench` takes). */
const FLEET = (process.env.BENCH_FLEET ?? '10,100').split(',').map(Number).filter((n) => n > 0);
/** Repeats of each fleet (interleaved shapes; the row is the median repeat). */
const FLEET_REPEATS = Number(process.env.BENCH_FLEET_REPEATS || '1');
/** The fleet sizes that also run the bare+HTTP floor (it costs as much time as ours). */
const FLEET_HTTP = (process.env.BENCH_FLEET_HTTP ?? '10,100').split(',').map(Number);
/** The fleet sizes that also run ours with the calculator defined `fast: true` (its calls local activities). */
const FLEET_FAST = (process.env.BENCH_FLEET_FAST ?? '10,100').split(',').map(Number);
/** The fleet sizes that also run ours with `localModelCalls` (each model call a local activity). */
const FLEET_LOCAL = (process.env.BENCH_FLEET_LOCAL ?? '10,100').split(',').map(Number);
/** Another build of the agent's workflow bundle (say, main's) run as a fourth shape, after ours in each repeat. */
const OURS_BEFORE_BUNDLE = process.env.BENCH_OURS_BEFORE_BUNDLE ? path.resolve(process.env.BENCH_OURS_BEFORE_BUNDLE) : undefined;
/** Another build's worker process (its bench/worker-process.mjs) run as the 'ours-before' shape, its activities too. */
const OURS_BEFORE_WORKER = process.env.BENCH_OURS_BEFORE_WORKER ? path.resolve(process.env.BENCH_OURS_BEFORE_WORKER) : undefined;
/** Whether the 'ours-before' shape runs (with the bundle before, or with the worker before). */
const OURS_BEFORE = OURS_BEFORE_BUNDLE ?? OURS_BEFORE_WORKER;
const fmt = (n: number, d = 1) => n.toFixed(d);

/** A sizing in the flags' terms, for the table's heading and the JSON figures. */
function describe(o: SizingWorkerOptions) {
  const pollers = (p: SizingWorkerOptions['workflowTaskPollerBehavior']) => (p?.type === 'autoscaling' ? 'auto' : p?.maximum);
  return {
    maxCachedWorkflows: o.maxCachedWorkflows,
    maxWorkflowTasks: o.maxConcurrentWorkflowTaskExecutions,
    workflowPollers: pollers(o.workflowTaskPollerBehavior),
    activityPollers: pollers(o.activityTaskPollerBehavior),
    maxActivities: o.maxConcurrentActivityTaskExecutions,
  };
}

/** The worker processes compared: ours, the bare shape (a sleeping 'model' activity), and the bare shape whose
 * 'model' activity makes ours's HTTP call (bench/worker-process.mjs). */
type Shape = 'ours' | 'ours-fast' | 'ours-before' | 'ours-local' | 'ours-local-fast' | 'bare' | 'bare-http';

/** The wall time of `fn`. */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; wallMs: number }> {
  const t0 = Date.now();
  const value = await fn();
  return { value, wallMs: Date.now() - t0 };
}

it('per-turn time and a fleet of agents on one worker, against the bare shape', async () => {
  // The embedded server's configuration (EMBEDDED_SERVER_DYNAMIC_CONFIG: eager activities, a faster transfer
  // queue); (a) also measures the bare floor on a server with the CLI's defaults (`defaultServer`).
  const server = await startDevServer({ uiPort: false });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const perTurnOn = process.env.BENCH_PER_TURN !== '0';
  const defaultServer = perTurnOn ? await startDevServer({ uiPort: false, dynamicConfig: [] }) : undefined;
  const defaultClient = defaultServer ? new Client({ connection: await Connection.connect({ address: defaultServer.address }) }) : undefined;
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
  // The bare workflow's bundle, built here once: its worker processes load it as ours load the prebuilt agent bundle.
  const bundleDir = mkdtempSync(path.join(tmpdir(), 'bench-bare-'));
  const bareBundle = path.join(bundleDir, 'bare-workflow-bundle.js');
  const { code } = await bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('./bare-workflow.ts', import.meta.url)), logger: new DefaultLogger('ERROR') });
  writeFileSync(bareBundle, code);
  const sizing = JSON.parse(process.env.BENCH_SIZING || '{}') as Record<string, unknown>;
  const LOCAL_SIZING = JSON.parse(process.env.BENCH_LOCAL_SIZING || '{}') as Record<string, unknown>;
  // What both workers run with (the cache as the child's default heap gives it: the same Node, the same flags).
  figures.workerSizing = describe(agentWorkerSizing(sizing as WorkerSizing));
  /** A fresh worker process of `shape` on a queue of its own, with its memory sampled until it is stopped. */
  const startWorker = async (shape: Shape, address = server.address, extraSizing: Record<string, unknown> = {}) => {
    const taskQueue = `bench-${shape}-${randomUUID()}`;
    const otherWorker = shape === 'ours-before' && OURS_BEFORE_WORKER;
    const child = await startWorkerProcess(otherWorker || WORKER_PROCESS, {
      TEMPORAL_ADDRESS: address,
      BENCH_SHAPE: otherWorker ? 'ours' : shape,
      BENCH_TASK_QUEUE: taskQueue,
      BENCH_SIZING: JSON.stringify({ ...sizing, ...extraSizing }),
      BENCH_BARE_BUNDLE: bareBundle,
      BENCH_OURS_BEFORE_BUNDLE: OURS_BEFORE_BUNDLE ?? '',
      ANTHROPIC_BASE_URL: model.url,
      // BENCH_CPU_PROF=DIR: each worker process (and its workflow thread) writes a V8 CPU profile to DIR/<shape>.
      ...(process.env.BENCH_CPU_PROF ? { BENCH_CPU_PROF: path.resolve(process.env.BENCH_CPU_PROF, shape) } : {}),
    });
    return { taskQueue, pid: child.pid!, memory: workerMemory(child) };
  };
  const runOurs = async (taskQueue: string, turns: number, localModelCalls = false) => {
    const { workflowId } = await startAgent(client, {
      task: 'bench',
      settings: defaultSettings({ tools: ['calculator'], maxSteps: turns + 5, promptCaching: false, ...(localModelCalls ? { localModelCalls } : {}) }),
      taskQueue,
    });
    const result = await getAgentResult(client, workflowId);
    if (result.status !== 'completed' || result.steps !== turns) throw new Error(`bench run ended early: ${JSON.stringify(result)}`);
    return workflowId;
  };
  const runBare = async (taskQueue: string, turns: number, modelMs: number, on = client) => {
    const workflowId = `bare-${randomUUID()}`;
    await on.workflow.execute('bareAgentWorkflow', { taskQueue, workflowId, args: [turns, modelMs] });
    return workflowId;
  };
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
  const notes: string[] = [];
  const workers: WorkerMemory[] = [];
  const withWorker = async <T>(shape: Shape, fn: (taskQueue: string, pid: number) => Promise<T>, extraSizing: Record<string, unknown> = {}) => {
    const { taskQueue, pid, memory } = await startWorker(shape, server.address, extraSizing);
    workers.push(memory);
    try {
      const value = await fn(taskQueue, pid);
      return { value, ...(await memory.stop()) };
    } finally {
      await memory.stop();
    }
  };
  try {
    if (perTurnOn && defaultClient && defaultServer) {
      // (a) per-turn time, interleaved repeats (warm-up run first), one worker process of each shape: ours, ours with
      // the calculator as a fast tool (local activities) and the bare floor on the embedded server's configuration,
      // and the bare floor on a server with the CLI's defaults.
      const perTurnMs = async (fn: () => Promise<string>) => {
        const t0 = performance.now();
        const workflowId = await fn();
        return { ms: (performance.now() - t0) / PER_TURN_TURNS, workflowId };
      };
      // With BENCH_OURS_BEFORE_BUNDLE (or _WORKER), ours with that workflow bundle (or worker) too, after ours in each repeat.
      // bare+HTTP: the bare shape whose 'model' activity makes ours's streamed HTTP call to the scripted model (the floor
      // for any agent on Temporal that calls a model over HTTP).
      const allShapes = ['ours', 'ours-before', 'ours-fast', 'ours-local', 'ours-local-fast', 'bare', 'bare-http', 'bare-default'] as const;
      const shapes = allShapes.filter((k) => k !== 'ours-before' || OURS_BEFORE);
      const names = {
        ours: 'ours',
        'ours-before': OURS_BEFORE_WORKER ? 'ours, worker before' : 'ours, bundle before',
        'ours-fast': 'ours, fast tool',
        'ours-local': 'ours, local model calls',
        'ours-local-fast': 'ours, local model calls + fast tool',
        bare: 'bare, embedded',
        'bare-http': 'bare+HTTP, embedded',
        'bare-default': 'bare, CLI defaults',
      };
      type Measured = (typeof allShapes)[number];
      const queues = {} as Record<Measured, string>;
      const pids = {} as Record<Measured, number>;
      const started: WorkerMemory[] = [];
      for (const shape of shapes) {
        const w = await startWorker(shape === 'bare-default' ? 'bare' : shape, shape === 'bare-default' ? defaultServer.address : undefined);
        queues[shape] = w.taskQueue;
        pids[shape] = w.pid;
        started.push(w.memory);
        workers.push(w.memory);
      }
      try {
        const runs: Record<Measured, () => Promise<string>> = {
          ours: () => runOurs(queues.ours, PER_TURN_TURNS),
          'ours-before': () => runOurs(queues['ours-before'], PER_TURN_TURNS),
          'ours-fast': () => runOurs(queues['ours-fast'], PER_TURN_TURNS),
          'ours-local': () => runOurs(queues['ours-local'], PER_TURN_TURNS, true),
          'ours-local-fast': () => runOurs(queues['ours-local-fast'], PER_TURN_TURNS, true),
          bare: () => runBare(queues.bare, PER_TURN_TURNS, 0),
          'bare-http': () => runBare(queues['bare-http'], PER_TURN_TURNS, 0),
          'bare-default': () => runBare(queues['bare-default'], PER_TURN_TURNS, 0, defaultClient),
        };
        const clientOf = (shape: Measured) => (shape === 'bare-default' ? defaultClient : client);
        for (const shape of shapes) await runs[shape](); // warm-up
        // Each worker process's CPU time over the measured runs: less disturbed by other work on the machine than wall
        // time (a burst of it lengthens one shape's runs, not its CPU).
        const cpuBefore = Object.fromEntries(shapes.map((k) => [k, cpuMs(pids[k])])) as Record<Measured, number>;
        const t = Object.fromEntries(shapes.map((k) => [k, [] as number[]])) as Record<Measured, number[]>;
        const timelines = Object.fromEntries(shapes.map((k) => [k, [] as Array<Map<string, number[]>>])) as Record<Measured, Array<Map<string, number[]>>>;
        const inProcess: number[] = [];
        for (let i = 0; i < PER_TURN_REPEATS; i++) {
          for (const shape of shapes) {
            const r = await perTurnMs(runs[shape]);
            t[shape].push(r.ms);
            timelines[shape].push(historyGaps((await clientOf(shape).workflow.getHandle(r.workflowId).fetchHistory()).events ?? []));
          }
          inProcess.push((await time(() => runInProcess(PER_TURN_TURNS))) / PER_TURN_TURNS);
        }
        const workerCpuMsPerTurn = Object.fromEntries(
          shapes.map((k) => [k, (cpuMs(pids[k]) - cpuBefore[k]) / (PER_TURN_TURNS * PER_TURN_REPEATS)]),
        ) as Record<Measured, number>;
        const ms = Object.fromEntries(shapes.map((k) => [k, median(t[k])])) as Record<Measured, number>;
        // Each repeat's own ratios (its shapes ran seconds apart): their spread says how far the machine's drift moves
        // the figure; with many repeats, their median is the steadier estimate.
        const repeatRatios = (k: Measured, floor: Measured) => t[k].map((x, i) => x / t[floor][i]);
        const spread = (xs: number[]) => `${fmt(median(xs), 2)} (${fmt(Math.min(...xs), 2)}–${fmt(Math.max(...xs), 2)})`;
        const gaps = Object.fromEntries(shapes.map((k) => [k, medianGaps(timelines[k])])) as Record<Measured, Map<string, number>>;
        const inProcessMs = median(inProcess);
        figures.perTurn = {
          oursMs: ms.ours,
          ...(OURS_BEFORE ? { oursBeforeMs: ms['ours-before'], oursBefore: OURS_BEFORE_WORKER ? 'worker' : 'bundle' } : {}),
          oursFastToolMs: ms['ours-fast'],
          oursLocalModelCallsMs: ms['ours-local'],
          oursLocalModelCallsFastToolMs: ms['ours-local-fast'],
          bareMs: ms.bare,
          bareDefaultMs: ms['bare-default'],
          bareHttpMs: ms['bare-http'],
          workerCpuMsPerTurn,
          oursOverBareHttp: ms.ours / ms['bare-http'],
          inProcessMs,
          turns: PER_TURN_TURNS,
          repeats: PER_TURN_REPEATS,
          serverDynamicConfig: EMBEDDED_SERVER_DYNAMIC_CONFIG,
          oursOverBare: ms.ours / ms.bare,
          oursOverBareByRepeat: repeatRatios('ours', 'bare'),
          oursLocalModelCallsFastToolOverBareByRepeat: repeatRatios('ours-local-fast', 'bare'),
          oursOverBareDefault: ms.ours / ms['bare-default'],
          oursFastToolOverBare: ms['ours-fast'] / ms.bare,
          oursFastToolOverBareDefault: ms['ours-fast'] / ms['bare-default'],
          oursLocalModelCallsOverBare: ms['ours-local'] / ms.bare,
          oursLocalModelCallsFastToolOverBare: ms['ours-local-fast'] / ms.bare,
          timelineMs: Object.fromEntries(shapes.map((k) => [k, Object.fromEntries(gaps[k])])),
        };
        const pairs = [...new Set(shapes.flatMap((k) => [...gaps[k].keys()]))];
        const cell = (k: Measured, pair: string) => (gaps[k].has(pair) ? fmt(gaps[k].get(pair)!) : '-').padStart(names[k].length);
        lines.push(
          `\n(a) Per-turn time, ${PER_TURN_TURNS}-turn runs, 0 ms scripted model, median of ${PER_TURN_REPEATS} interleaved; embedded server: ${EMBEDDED_SERVER_DYNAMIC_CONFIG.join(' ')}`,
          `${shapes.map((k) => `${names[k]} (ms/turn)`).join(' | ')} | in-process (ms/turn) | ours / bare embedded | ours, fast tool / bare embedded | ours / bare defaults | ours, fast tool / bare defaults`,
          `${shapes.map((k) => fmt(ms[k]).padStart(`${names[k]} (ms/turn)`.length)).join(' | ')} | ${fmt(inProcessMs, 2).padStart(20)} | ` +
            `${fmt(ms.ours / ms.bare, 2).padStart(20)} | ${fmt(ms['ours-fast'] / ms.bare, 2).padStart(31)} | ${fmt(ms.ours / ms['bare-default'], 2).padStart(20)} | ${fmt(ms['ours-fast'] / ms['bare-default'], 2).padStart(30)}`,
          `ours / bare+HTTP embedded: ${fmt(ms.ours / ms['bare-http'], 2)}; bare+HTTP / bare embedded: ${fmt(ms['bare-http'] / ms.bare, 2)}`,
          `each repeat's own ratio, median (lowest–highest): ours / bare ${spread(repeatRatios('ours', 'bare'))}, ` +
            `ours, local model calls + fast tool / bare ${spread(repeatRatios('ours-local-fast', 'bare'))}, ours / bare+HTTP ${spread(repeatRatios('ours', 'bare-http'))}`,
          `worker process CPU per turn (ms, all measured runs): ${shapes.map((k) => `${names[k]} ${fmt(workerCpuMsPerTurn[k], 2)}`).join(', ')}`,
          `ours, local model calls / bare embedded: ${fmt(ms['ours-local'] / ms.bare, 2)}; with a fast tool too: ${fmt(ms['ours-local-fast'] / ms.bare, 2)}` +
            (OURS_BEFORE ? `; ours with the ${OURS_BEFORE_WORKER ? 'worker' : 'bundle'} before / bare embedded: ${fmt(ms['ours-before'] / ms.bare, 2)}` : ''),
          `\n(a) Where the time went: mean ms between consecutive history events (median of the ${PER_TURN_REPEATS} runs), pairs seen more than once a run`,
          `${'from → to'.padEnd(64)} | ${shapes.map((k) => names[k]).join(' | ')}`,
          ...pairs.map((p) => `${p.padEnd(64)} | ${shapes.map((k) => cell(k, p)).join(' | ')}`),
        );
        console.log(lines.join('\n'));
      } finally {
        await Promise.all(started.map((m) => m.stop()));
      }
    }

    // (b) the fleet: a fresh worker process per shape and N, so each peak RSS is that case's.
    fleetModelMs.value = MODEL_MS;
    const idealMs = FLEET_TURNS * MODEL_MS;
    const fleet: unknown[] = [];
    if (FLEET.length > 0) lines.push(
      `\n(b) N concurrent agents of ${FLEET_TURNS} turns, ${MODEL_MS} ms model, one worker process each (ideal ${idealMs} ms); worker sizing ${JSON.stringify(figures.workerSizing)}`,
      `    N | bare wall (s) | ours wall (s) | ours/bare | bare turns/s | ours turns/s | bare wall/ideal | ours wall/ideal | worker peak RSS bare / ours (MB) | WFT p50 bare / ours (ms) | WFT p95 bare / ours (ms) | failed | bare+HTTP wall (s) | ours/bare+HTTP | ours, fast tool wall (s) | ours, fast tool/bare | fast tool peak RSS (MB)`,
    );
    for (const n of FLEET) {
      // CPU time is read around each fleet, of its worker process and of the server: what each shape costs.
      // And the model requests each fleet sent: a run that completed sent one a turn, so any more were sent again (a
      // retried call, or a local call made again after its workflow task timed out: billed twice by a real model).
      const fleetOf = async (workerPid: number, run: () => Promise<string>) => {
        const counters = await readServerCounters(server.metricsPort);
        const before = { worker: cpuMs(workerPid), threads: threadCpuMs(workerPid), server: cpuMs(server.process.pid!), requests: model.requests.length, bench: process.cpuUsage() };
        const result = await timed(() => Promise.allSettled(Array.from({ length: n }, run)));
        const bench = process.cpuUsage(before.bench);
        return {
          ...result,
          cpuMs: { worker: cpuMs(workerPid) - before.worker, server: cpuMs(server.process.pid!) - before.server },
          // This process: the client starting and awaiting the runs, and the scripted model answering them.
          benchCpuMs: (bench.user + bench.system) / 1000,
          workerThreads: threadShares(before.threads, threadCpuMs(workerPid), result.wallMs),
          modelRequests: model.requests.length - before.requests,
          // What the server did a turn, from its own counters (bench/server-metrics.ts).
          serverPerTurn: countersPerTurn(counters, await readServerCounters(server.metricsPort), n * FLEET_TURNS),
        };
      };
      // Repeats interleaved (bare, ours, bare+HTTP, bare, ours, ...), so that a change of the machine's load falls on
      // every shape; the row is the repeat whose ours/bare is the median.
      const withHttp = FLEET_HTTP.includes(n);
      const withFast = FLEET_FAST.includes(n);
      const withLocal = FLEET_LOCAL.includes(n);
      type Fleet = Awaited<ReturnType<typeof fleetOf>>;
      const repeats: { b: Fleet; o: Fleet & { transcriptStats?: Record<string, number> }; h?: Fleet; f?: Fleet; l?: Fleet; bRss: number; oRss: number; hRss?: number; fRss?: number; lRss?: number }[] = [];
      for (let r = 0; r < FLEET_REPEATS; r++) {
        const b = await withWorker('bare', (q, pid) => fleetOf(pid, () => runBare(q, FLEET_TURNS, MODEL_MS)));
        const o = await withWorker('ours', (q, pid) => fleetOf(pid, () => runOurs(q, FLEET_TURNS)));
        const h = withHttp ? await withWorker('bare-http', (q, pid) => fleetOf(pid, () => runBare(q, FLEET_TURNS, MODEL_MS))) : undefined;
        const f = withFast ? await withWorker('ours-fast', (q, pid) => fleetOf(pid, () => runOurs(q, FLEET_TURNS))) : undefined;
        // Each local model call holds a workflow-task slot while it runs (docs/operations.md, "Local model calls"), so
        // the worker's workflow-task slots bound the calls at once; BENCH_LOCAL_SIZING sizes this worker otherwise.
        const l = withLocal ? await withWorker('ours-local', (q, pid) => fleetOf(pid, () => runOurs(q, FLEET_TURNS, true)), LOCAL_SIZING) : undefined;
        if (OURS_BEFORE) {
          const ob = await withWorker('ours-before', (q, pid) => fleetOf(pid, () => runOurs(q, FLEET_TURNS)));
          const perTurn = (x: { worker: number; server: number }) => `${fmt(x.worker / (n * FLEET_TURNS), 2)} + ${fmt(x.server / (n * FLEET_TURNS), 2)}`;
          notes.push(
            `${n} agents, repeat ${r + 1}, the workflow bundle before and after: wall ${fmt(ob.value.wallMs / 1000)} s / ${fmt(o.value.wallMs / 1000)} s, ` +
              `CPU per turn (worker + server, ms) ${perTurn(ob.value.cpuMs)} / ${perTurn(o.value.cpuMs)}; bare ${perTurn(b.value.cpuMs)}; ` +
              `worker peak RSS ${fmt(ob.peakRssMb, 0)} / ${fmt(o.peakRssMb, 0)} MB`,
          );
        }
        repeats.push({
          b: b.value,
          o: { ...o.value, transcriptStats: o.transcriptStats },
          h: h?.value,
          f: f?.value,
          l: l?.value,
          bRss: b.peakRssMb,
          oRss: o.peakRssMb,
          hRss: h?.peakRssMb,
          fRss: f?.peakRssMb,
          lRss: l?.peakRssMb,
        });
        if (FLEET_REPEATS > 1)
          console.log(
            `${n} agents, repeat ${r + 1} of ${FLEET_REPEATS}: ours/bare ${fmt(o.value.wallMs / b.value.wallMs, 2)}` +
              (f ? `, ours with a fast tool/bare ${fmt(f.value.wallMs / b.value.wallMs, 2)}` : '') +
              (l ? `, ours with local model calls/bare ${fmt(l.value.wallMs / b.value.wallMs, 2)}` : ''),
          );
      }
      const ratios = repeats.map((r) => r.o.wallMs / r.b.wallMs);
      const { b, o, h, bRss, oRss, hRss } = repeats[ratios.indexOf(median(ratios))];
      const done = (rs: PromiseSettledResult<string>[]) => rs.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const failedOurs = repeats.flatMap((r) => r.o.value.filter((x) => x.status === 'rejected'));
      const failedBare = repeats.reduce((k, r) => k + r.b.value.filter((x) => x.status === 'rejected').length, 0);
      if (failedOurs.length) console.log(`ours, ${n}: ${failedOurs.length} failed, first: ${String((failedOurs[0] as PromiseRejectedResult).reason)}`);
      const bareWft = await workflowTaskLatency(client, done(b.value).slice(0, LATENCY_SAMPLE));
      const oursWft = await workflowTaskLatency(client, done(o.value).slice(0, LATENCY_SAMPLE));
      const cpuPerTurn = (c: { worker: number; server: number }) => (c.worker + c.server) / (n * FLEET_TURNS);
      /** A shape run beside ours (a fast tool, local model calls): its own median repeat, by its ratio to the same
       * repeat's bare fleet; undefined when it did not run at this size. */
      const beside = (shape: string, of: (r: (typeof repeats)[number]) => { fleet?: Fleet; rss?: number }) => {
        if (!of(repeats[0]).fleet) return undefined;
        const ratiosOfRepeats = repeats.map((r) => of(r).fleet!.wallMs / r.b.wallMs);
        const repeat = repeats[ratiosOfRepeats.indexOf(median(ratiosOfRepeats))];
        const { fleet, rss } = of(repeat);
        const failed = repeats.flatMap((r) => of(r).fleet!.value.filter((x) => x.status === 'rejected'));
        if (failed.length) console.log(`${shape}, ${n}: ${failed.length} failed, first: ${String((failed[0] as PromiseRejectedResult).reason)}`);
        return {
          summary: {
            wallMs: fleet!.wallMs,
            ratio: fleet!.wallMs / repeat.b.wallMs,
            ratiosOfRepeats,
            workerPeakRssMb: rss!,
            failed: failed.length,
            cpuMs: fleet!.cpuMs,
            cpuRatiosOfRepeats: repeats.map((r) => cpuPerTurn(of(r).fleet!.cpuMs) / cpuPerTurn(r.b.cpuMs)),
          },
          repeat,
          fleet: fleet!,
        };
      };
      const fastBeside = beside('ours with a fast tool', (r) => ({ fleet: r.f, rss: r.fRss }));
      const localBeside = beside('ours with local model calls', (r) => ({ fleet: r.l, rss: r.lRss }));
      const fastRepeat = fastBeside?.repeat;
      const localRepeat = localBeside?.repeat;
      const row = {
        n,
        repeats: FLEET_REPEATS,
        ratiosOfRepeats: ratios,
        bareWallMs: b.wallMs,
        oursWallMs: o.wallMs,
        ratio: o.wallMs / b.wallMs,
        bareTurnsPerSec: (n * FLEET_TURNS) / (b.wallMs / 1000),
        oursTurnsPerSec: (n * FLEET_TURNS) / (o.wallMs / 1000),
        bareOverIdeal: b.wallMs / idealMs,
        oursOverIdeal: o.wallMs / idealMs,
        bareWorkerPeakRssMb: bRss,
        oursWorkerPeakRssMb: oRss,
        bareWorkflowTask: bareWft,
        oursWorkflowTask: oursWft,
        failedOurs: failedOurs.length,
        failedBare,
        bareHttpWallMs: h?.wallMs ?? null,
        bareHttpWorkerPeakRssMb: hRss ?? null,
        failedBareHttp: repeats.reduce((k, r) => k + (r.h?.value.filter((x) => x.status === 'rejected').length ?? 0), 0),
        oursOverBareHttp: h ? o.wallMs / h.wallMs : null,
        oursTranscriptStats: o.transcriptStats,
        cpuMs: { bare: b.cpuMs, ours: o.cpuMs, bareHttp: h?.cpuMs ?? null },
        benchCpuMs: { bare: b.benchCpuMs, ours: o.benchCpuMs, bareHttp: h?.benchCpuMs ?? null },
        serverPerTurn: { bare: b.serverPerTurn, ours: o.serverPerTurn, bareHttp: h?.serverPerTurn ?? null },
        // CPU per turn (worker + server), ours over bare, in each repeat: the median is the figure.
        cpuRatiosOfRepeats: repeats.map((r) => cpuPerTurn(r.o.cpuMs) / cpuPerTurn(r.b.cpuMs)),
        oursFastTool: fastBeside?.summary ?? null,
        oursLocalModelCalls: localBeside
          ? { ...localBeside.summary, workflowTask: await workflowTaskLatency(client, done(localBeside.fleet.value).slice(0, LATENCY_SAMPLE)) }
          : null,
      };
      fleet.push(row);
      const orDash = (x: number | null, f: (x: number) => string) => (x === null ? '—' : f(x));
      lines.push(
        `${String(n).padStart(5)} | ${fmt(row.bareWallMs / 1000).padStart(13)} | ${fmt(row.oursWallMs / 1000).padStart(13)} | ${fmt(row.ratio, 2).padStart(9)} | ` +
          `${fmt(row.bareTurnsPerSec).padStart(12)} | ${fmt(row.oursTurnsPerSec).padStart(12)} | ${fmt(row.bareOverIdeal, 2).padStart(15)} | ${fmt(row.oursOverIdeal, 2).padStart(15)} | ` +
          `${`${fmt(row.bareWorkerPeakRssMb, 0)} / ${fmt(row.oursWorkerPeakRssMb, 0)}`.padStart(32)} | ` +
          `${`${fmt(bareWft.p50Ms, 0)} / ${fmt(oursWft.p50Ms, 0)}`.padStart(24)} | ${`${fmt(bareWft.p95Ms, 0)} / ${fmt(oursWft.p95Ms, 0)}`.padStart(24)} | ${failedBare} / ${failedOurs.length} | ` +
          `${orDash(row.bareHttpWallMs, (x) => fmt(x / 1000)).padStart(18)} | ${orDash(row.oursOverBareHttp, (x) => fmt(x, 2)).padStart(14)} | ` +
          `${orDash(row.oursFastTool?.wallMs ?? null, (x) => fmt(x / 1000)).padStart(24)} | ${orDash(row.oursFastTool?.ratio ?? null, (x) => fmt(x, 2)).padStart(20)} | ` +
          `${orDash(row.oursFastTool?.workerPeakRssMb ?? null, (x) => fmt(x, 0)).padStart(23)}`,
      );
      console.log(lines.at(-1));
      const perTurn = (ms: number) => fmt(ms / (n * FLEET_TURNS), 2);
      const c = row.cpuMs;
      notes.push(
        `${n} agents, CPU per turn (ms), worker + server: bare ${perTurn(c.bare.worker)} + ${perTurn(c.bare.server)}, ` +
          (c.bareHttp ? `bare+HTTP ${perTurn(c.bareHttp.worker)} + ${perTurn(c.bareHttp.server)}, ` : '') +
          `ours ${perTurn(c.ours.worker)} + ${perTurn(c.ours.server)}; the bench process (client and scripted model): ` +
          `bare ${perTurn(row.benchCpuMs.bare)}${row.benchCpuMs.bareHttp === null ? '' : `, bare+HTTP ${perTurn(row.benchCpuMs.bareHttp)}`}, ours ${perTurn(row.benchCpuMs.ours)}; ours / bare, total CPU: ${row.cpuRatiosOfRepeats.map((x) => fmt(x, 2)).join(', ')}` +
          (FLEET_REPEATS > 1 ? ` (median ${fmt(median(row.cpuRatiosOfRepeats), 2)}); ours/bare wall: ${ratios.map((x) => fmt(x, 2)).join(', ')} (median ${fmt(median(ratios), 2)})` : ''),
      );
      const fast = row.oursFastTool;
      if (fast && fastRepeat)
        notes.push(
          `${n} agents, ours with a fast tool: CPU per turn (ms), worker + server: ${perTurn(fast.cpuMs.worker)} + ${perTurn(fast.cpuMs.server)} ` +
            `(its repeat's bare: ${perTurn(fastRepeat.b.cpuMs.worker)} + ${perTurn(fastRepeat.b.cpuMs.server)}); / bare, total CPU: ${fast.cpuRatiosOfRepeats.map((x) => fmt(x, 2)).join(', ')}; ` +
            `wall / bare: ${fast.ratiosOfRepeats.map((x) => fmt(x, 2)).join(', ')}${FLEET_REPEATS > 1 ? ` (median ${fmt(median(fast.ratiosOfRepeats), 2)})` : ''}; ${fast.failed} failed`,
        );
      const local = row.oursLocalModelCalls;
      if (local && localRepeat)
        notes.push(
          `${n} agents, ours with local model calls: wall ${fmt(local.wallMs / 1000)} s (its repeat's bare: ${fmt(localRepeat.b.wallMs / 1000)} s); ` +
            `wall / bare: ${local.ratiosOfRepeats.map((x) => fmt(x, 2)).join(', ')}${FLEET_REPEATS > 1 ? ` (median ${fmt(median(local.ratiosOfRepeats), 2)})` : ''}; ` +
            `CPU per turn (ms), worker + server: ${perTurn(local.cpuMs.worker)} + ${perTurn(local.cpuMs.server)} ` +
            `(its repeat's bare: ${perTurn(localRepeat.b.cpuMs.worker)} + ${perTurn(localRepeat.b.cpuMs.server)}); / bare, total CPU: ${local.cpuRatiosOfRepeats.map((x) => fmt(x, 2)).join(', ')}` +
            `${FLEET_REPEATS > 1 ? ` (median ${fmt(median(local.cpuRatiosOfRepeats), 2)})` : ''}; worker peak RSS ${fmt(local.workerPeakRssMb, 0)} MB; ` +
            `WFT p50 / p95 ${fmt(local.workflowTask.p50Ms, 0)} / ${fmt(local.workflowTask.p95Ms, 0)} ms; ${local.failed} failed`,
        );
      // Requests beyond one a turn, summed over the repeats (bare makes none; bare+HTTP one a turn, as ours).
      const sentAgain = (of: (r: (typeof repeats)[number]) => Fleet | undefined) =>
        repeats.reduce((k, r) => k + (of(r) ? of(r)!.modelRequests - n * FLEET_TURNS : 0), 0);
      notes.push(
        `${n} agents: model requests sent again (beyond one a turn, ${FLEET_REPEATS} repeat(s) of ${n * FLEET_TURNS} turns): ours ${sentAgain((r) => r.o)}` +
          (withFast ? `, with a fast tool ${sentAgain((r) => r.f)}` : '') +
          (withLocal ? `, with local model calls ${sentAgain((r) => r.l)}` : '') +
          (withHttp ? `, bare+HTTP ${sentAgain((r) => r.h)}` : ''),
      );
      const timedOut = (w: { tasks: number; timedOut: number; timedOutByType: Record<string, number> }) =>
        `${w.timedOut} of ${w.tasks}${w.timedOut ? ` (${Object.entries(w.timedOutByType).map(([k, v]) => `${k} ${v}`).join(', ')})` : ''}`;
      notes.push(
        `${n} agents: workflow tasks timed out in the sampled runs: bare ${timedOut(bareWft)}, ours ${timedOut(oursWft)}` +
          (local ? `, with local model calls ${timedOut(local.workflowTask)}` : ''),
      );
      const events = (w: { eventsPerRun: Record<string, number> }) =>
        `${Object.values(w.eventsPerRun).reduce((a, b) => a + b, 0).toFixed(1)} (${Object.entries(w.eventsPerRun)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${v.toFixed(1)}`)
          .join(', ')})`;
      notes.push(`${n} agents: history events per run (sampled runs): bare ${events(bareWft)}; ours ${events(oursWft)}`);
      notes.push(`${n} agents, the worker's threads (share of one core): bare ${b.workerThreads}; ${h ? `bare+HTTP ${h.workerThreads}; ` : ''}ours ${o.workerThreads}`);
      notes.push(
        `${n} agents: the server's counters that differ most a turn, ours / ${h ? 'bare+HTTP' : 'bare'}:\n    ` +
          largestDifferences(o.serverPerTurn, (h ?? b).serverPerTurn),
      );
      const t = o.transcriptStats;
      if (t) notes.push(`${n} agents: ${t.cacheHits} model calls found their transcript in the worker's cache, ${t.queries} queried (${t.queryRetries} query retries)`);
    }
    lines.push(...notes);
    figures.fleet = fleet;
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await model.close();
    await client.connection.close();
    await defaultClient?.connection.close();
    await server.stop();
    await defaultServer?.stop();
    rmSync(bundleDir, { recursive: true, force: true });
  }
  console.log(lines.join('\n') + '\n');
  const file = process.env.BENCH_JSON;
  if (file) {
    const all = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    writeFileSync(file, JSON.stringify({ ...all, ...figures }, null, 2));
  }
  // 30 minutes a repeat (bare, ours and ours with a fast tool), 60 with ours-before: bare, ours and ours-before at 1,000
  // agents passed 20 minutes under load.
}, 1_800_000 * FLEET_REPEATS * (OURS_BEFORE ? 2 : 1));
