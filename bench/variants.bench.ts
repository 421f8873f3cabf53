// Ours against ours changed in one thing, side by side in one run: a fleet of N agents (10 turns, 200 ms model, one
// worker process each, as bench/fleet.bench.ts's (b)) for each variant, repeats interleaved, with each one's wall
// time, CPU per turn (worker and server) and the server's counters that differ from the first variant's. What a
// change of run settings or of the workflow code costs at scale, without the bare shapes around it.
//   BENCH_VARIANTS='[{"name":"default"},{"name":"no search attributes","settings":{"searchAttributes":false}},
//                    {"name":"bundle before","bundle":"/path/to/workflow-bundle.js"}]'
//   BENCH_VARIANTS_N (default 1000), BENCH_VARIANTS_REPEATS (default 1).
//   node scripts/bench.mjs --only bench/variants.bench.ts
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { it } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../src/client/index.js';
import type { AgentSettings } from '../src/core/types.js';
import { startDevServer } from '../src/devserver/index.js';
import { reply, startScriptedModel, text, toolUse } from '../src/scripted/index.js';
import { startWorkerProcess } from '../test/helpers/worker-process.js';
import { largestDifferences, perTurn, readServerCounters } from './server-metrics.js';
import { cpuMs, threadCpuMs, threadShares, workerMemory } from './worker-memory.js';

interface Variant {
  name: string;
  /** Run settings over the bench's (calculator, maxSteps, no prompt caching). */
  settings?: Partial<AgentSettings>;
  /** Another build of the agent's workflow bundle, run by the same worker. */
  bundle?: string;
}

const VARIANTS = JSON.parse(process.env.BENCH_VARIANTS || '[{"name":"default"}]') as Variant[];
const N = Number(process.env.BENCH_VARIANTS_N || '1000');
const REPEATS = Number(process.env.BENCH_VARIANTS_REPEATS || '1');
const TURNS = 10;
const WORKER_PROCESS = fileURLToPath(new URL('./worker-process.mjs', import.meta.url));

it('ours and its variants, a fleet each, side by side', async () => {
  const server = await startDevServer({ uiPort: false });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const model = await startScriptedModel({
    script: (_req, turn) => ({ ...(turn < TURNS - 1 ? reply([toolUse('calculator', { expression: `${turn}+1` })]) : reply([text('done')])), delayMs: 200 }),
  });
  const results = new Map<string, { wallMs: number; threads: string; bench: number; worker: number; server: number; counters: Record<string, number> }[]>();
  try {
    for (let r = 0; r < REPEATS; r++) {
      for (const v of VARIANTS) {
        const taskQueue = `variant-${randomUUID()}`;
        const child = await startWorkerProcess(WORKER_PROCESS, {
          TEMPORAL_ADDRESS: server.address,
          BENCH_SHAPE: v.bundle ? 'ours-before' : 'ours',
          BENCH_OURS_BEFORE_BUNDLE: v.bundle ?? '',
          BENCH_TASK_QUEUE: taskQueue,
          ANTHROPIC_BASE_URL: model.url,
        });
        const memory = workerMemory(child);
        try {
          const counters = await readServerCounters(server.metricsPort);
          const before = { worker: cpuMs(child.pid!), threads: threadCpuMs(child.pid!), server: cpuMs(server.process.pid!), bench: process.cpuUsage() };
          const t0 = Date.now();
          await Promise.all(
            Array.from({ length: N }, async () => {
              const settings = defaultSettings({ tools: ['calculator'], maxSteps: TURNS + 5, promptCaching: false, ...v.settings });
              const { workflowId } = await startAgent(client, { task: 'bench', settings, taskQueue });
              const result = await getAgentResult(client, workflowId);
              if (result.status !== 'completed' || result.steps !== TURNS) throw new Error(`bench run ended early: ${JSON.stringify(result)}`);
            }),
          );
          const bench = process.cpuUsage(before.bench);
          const row = {
            threads: threadShares(before.threads, threadCpuMs(child.pid!), Date.now() - t0),
            wallMs: Date.now() - t0,
            bench: (bench.user + bench.system) / 1000,
            worker: cpuMs(child.pid!) - before.worker,
            server: cpuMs(server.process.pid!) - before.server,
            counters: perTurn(counters, await readServerCounters(server.metricsPort), N * TURNS),
          };
          results.set(v.name, [...(results.get(v.name) ?? []), row]);
          console.log(`repeat ${r + 1}, ${v.name}: ${(row.wallMs / 1000).toFixed(1)} s; the worker's threads: ${row.threads}`);
        } finally {
          await memory.stop();
        }
      }
    }
  } finally {
    await model.close();
    await client.connection.close();
    await server.stop();
  }
  const turns = N * TURNS;
  const first = results.get(VARIANTS[0].name)!;
  const lines = [`${N} agents × ${TURNS} turns, 200 ms model, ${REPEATS} repeat(s), interleaved`, 'variant | wall (s) each repeat | / first | CPU per turn, worker + server + bench process (ms)'];
  for (const v of VARIANTS) {
    const rows = results.get(v.name)!;
    const ratios = rows.map((x, i) => x.wallMs / first[i].wallMs);
    const cpu = rows.map((x) => `${(x.worker / turns).toFixed(2)} + ${(x.server / turns).toFixed(2)} + ${(x.bench / turns).toFixed(2)}`);
    lines.push(`${v.name} | ${rows.map((x) => (x.wallMs / 1000).toFixed(1)).join(', ')} | ${ratios.map((x) => x.toFixed(2)).join(', ')} | ${cpu.join('; ')}`);
  }
  for (const v of VARIANTS.slice(1)) lines.push(`server counters, ${v.name} / ${VARIANTS[0].name}, last repeat:\n    ${largestDifferences(results.get(v.name)!.at(-1)!.counters, first.at(-1)!.counters)}`);
  console.log(lines.join('\n'));
}, 3_600_000);
