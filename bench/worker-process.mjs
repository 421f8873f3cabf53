// A worker process for bench/fleet.bench.ts, so that its memory is the worker's alone (the bench process keeps the
// client, the scripted model and the dev server): `ours` is createAgentWorker from the BUILT package (dist/, as a
// user runs it; `npm run bench` builds first), `bare` is the floor: bench/bare-workflow.ts with a 'model' activity
// that sleeps and a no-op 'tool' activity, sized like ours; `bare-http` the same whose 'model' activity makes the
// streamed HTTP request to the scripted model that ours makes. Prints `ready` once polling; SIGTERM stops it.
//   env: TEMPORAL_ADDRESS, BENCH_SHAPE (ours | ours-fast (the calculator with `fast: true`) | ours-before | ours-local | ours-local-fast | bare | bare-http), BENCH_TASK_QUEUE, ANTHROPIC_BASE_URL (ours),
//        BENCH_BARE_BUNDLE (bare: the bare workflow's bundle, built by the bench, so that no worker's peak memory
//        includes a webpack build), BENCH_SIZING (JSON WorkerSizing, optional: the agent's defaults otherwise)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { calculator, createAgentWorker } from '../dist/index.js';
import { agentWorkerSizing } from '../dist/worker/index.js';

// BENCH_CPU_PROF=DIR: this process runs itself again under `node --cpu-prof` (not allowed in NODE_OPTIONS), which
// writes a profile of each thread (the workflow thread included) to DIR as it exits; its CPU time is the child's.
if (process.env.BENCH_CPU_PROF && !process.env.BENCH_CPU_PROFILING) {
  const child = spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_CPU_PROFILING: '1' },
    stdio: 'inherit',
  });
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  await new Promise((resolve) => child.once('exit', resolve));
  process.exit(0);
}
Runtime.install({ logger: new DefaultLogger('ERROR') });
const address = process.env.TEMPORAL_ADDRESS;
const taskQueue = process.env.BENCH_TASK_QUEUE;
const sizing = JSON.parse(process.env.BENCH_SIZING || '{}');
const connection = await NativeConnection.connect({ address });

let worker;
let transcripts;
if (['ours', 'ours-fast', 'ours-before', 'ours-local', 'ours-local-fast'].includes(process.env.BENCH_SHAPE)) {
  const client = new Client({ connection: await Connection.connect({ address }) });
  // `ours-fast`: the calculator defined with `fast: true`, so its calls run as local activities.
  // (`ours-local` and `ours-local-fast`: ours's and ours-fast's workers; the bench starts their runs with `localModelCalls`.)
  const tools = ['ours-fast', 'ours-local-fast'].includes(process.env.BENCH_SHAPE) ? [{ ...calculator, fast: true }] : undefined;
  // `ours-before`: the same worker running another workflow bundle (BENCH_OURS_BEFORE_BUNDLE: the agent's workflow code
  // as it was), to measure a change of the workflow code side by side.
  const workflowBundlePath = process.env.BENCH_SHAPE === 'ours-before' ? process.env.BENCH_OURS_BEFORE_BUNDLE : undefined;
  ({ worker, transcripts } = await createAgentWorker({ connection, client, taskQueue, tools, model: { apiKey: 'bench', baseURL: process.env.ANTHROPIC_BASE_URL }, workflowBundlePath, ...sizing }));
} else {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  // `bare-http`: the 'model' activity makes the HTTP call ours makes (one streamed Messages API request through the
  // same SDK, to the same scripted model, which waits as long as the fleet's model latency) and nothing else:
  // the floor for any agent on Temporal that calls Claude.
  let anthropic;
  const httpModel = () =>
    (anthropic ??= new Anthropic({ apiKey: 'bench', baseURL: process.env.ANTHROPIC_BASE_URL, maxRetries: 0 })).messages
      .stream({ model: 'claude-sonnet-5-5', max_tokens: 4096, messages: [{ role: 'user', content: 'bench' }] })
      .finalMessage()
      .then(() => undefined);
  worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: { codePath: process.env.BENCH_BARE_BUNDLE },
    activities: { bareModel: process.env.BENCH_SHAPE === 'bare-http' ? httpModel : (ms) => sleep(ms), bareTool: async () => {} },
    // The same cache, workflow-task slots, pollers and activity slots as ours: the same worker, running other code.
    ...agentWorkerSizing(sizing),
  });
}
const running = worker.run();
process.stdout.write('ready\n');
await running;
// How the model calls got their transcripts: from the cache the workflows share into, or by query.
if (transcripts) process.stdout.write(`transcript-stats ${JSON.stringify(transcripts.stats)}\n`);
await connection.close();
