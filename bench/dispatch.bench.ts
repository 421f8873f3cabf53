// What bounds a bare activity round trip on the embedded dev server (issue 12: "~100 ms, a fixed delay rather
// than CPU: find what bounds it"; issue 24: shorten it). Bare 20-turn runs (no-op "model" and "tool" activities) on
// dev servers of several dynamic configs side by side (the CLI's defaults, eager activity execution, a faster
// transfer-queue reader, and both: the embedded server's EMBEDDED_SERVER_DYNAMIC_CONFIG), repeats interleaved; from each run's history the time between each pair
// of consecutive events: where a turn's time goes.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { it } from 'vitest';
import { historyGaps, medianGaps, median } from './history-gaps.js';
import { EMBEDDED_SERVER_DYNAMIC_CONFIG, startDevServer } from '../src/devserver/index.js';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const TURNS = 20;

/** A dev-server configuration measured: its name in the table and its `--dynamic-config-value` settings. */
interface ServerConfig {
  name: string;
  dynamicConfig: string[];
}

/** BENCH_DISPATCH_CONFIGS='[{"name":"x","dynamicConfig":["key=value"]}]' measures others (to look for a setting). */
const CONFIGS: ServerConfig[] = process.env.BENCH_DISPATCH_CONFIGS
  ? (JSON.parse(process.env.BENCH_DISPATCH_CONFIGS) as ServerConfig[])
  : [
      { name: 'default', dynamicConfig: [] },
      { name: 'eager activities', dynamicConfig: ['system.enableActivityEagerExecution=true'] },
      { name: 'transfer-queue reads 1000/s', dynamicConfig: ['history.transferProcessorMaxPollRPS=1000'] },
      { name: 'embedded', dynamicConfig: [...EMBEDDED_SERVER_DYNAMIC_CONFIG] },
    ];
const REPEATS = Number(process.env.BENCH_DISPATCH_REPEATS ?? 3);

/** A dev server of `config` with a bare worker on it; `run()` times one 20-turn run and reads its history. */
async function serve(config: ServerConfig, bundle: { code: string }) {
  const server = await startDevServer({
    uiPort: false,
    dynamicConfig: config.dynamicConfig,
  });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const taskQueue = `dispatch-${randomUUID()}`;
  const worker = await Worker.create({ connection, taskQueue, workflowBundle: bundle, activities: { bareModel: async () => {}, bareTool: async () => {} } });
  const running = worker.run();
  const execute = (turns: number, workflowId = `dispatch-${randomUUID()}`) =>
    client.workflow.execute('bareAgentWorkflow', { taskQueue, workflowId, args: [turns, 0] });
  await execute(5); // warm-up
  return {
    config,
    async run() {
      const workflowId = `dispatch-${randomUUID()}`;
      const t0 = performance.now();
      await execute(TURNS, workflowId);
      const perTurnMs = (performance.now() - t0) / TURNS;
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      return { perTurnMs, gaps: historyGaps(history.events ?? []) };
    },
    async close() {
      worker.shutdown();
      await running;
      await client.connection.close();
      await connection.close();
      await server.stop();
    },
  };
}

it('where a bare activity round trip spends its time on the dev server', async () => {
  const bundle = await bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('./bare-workflow.ts', import.meta.url)), logger: new DefaultLogger('ERROR') });
  const servers = [];
  for (const config of CONFIGS) servers.push(await serve(config, bundle));
  // Interleaved: repeat i runs on every server before repeat i + 1, so load that comes and goes hits all alike.
  const runs = servers.map(() => [] as Array<{ perTurnMs: number; gaps: Map<string, number[]> }>);
  try {
    for (let i = 0; i < REPEATS; i++) for (const [j, s] of servers.entries()) runs[j].push(await s.run());
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
  // Per server: the median over repeats of each run's mean gap (and of its wall time per turn).
  const results = servers.map((s, j) => {
    return { config: s.config, perTurnMs: median(runs[j].map((r) => r.perTurnMs)), gapMs: medianGaps(runs[j].map((r) => r.gaps)) };
  });
  const keys = [...new Set(results.flatMap((r) => [...r.gapMs.keys()]))];
  const cell = (r: (typeof results)[number], ms: number | undefined) => (ms === undefined ? '-' : ms.toFixed(1)).padStart(r.config.name.length);
  const lines = [
    `\n(e) A bare turn (two no-op activities) on the dev server, ${TURNS} turns: mean time between history events (ms), median of ${REPEATS} interleaved runs`,
    ...results.map((r) => `${r.config.name}: ${r.config.dynamicConfig.join(' ') || 'no dynamic config'}`),
    `${'from → to'.padEnd(56)} | ${results.map((r) => r.config.name).join(' | ')}`,
    ...keys.map((k) => `${k.padEnd(56)} | ${results.map((r) => cell(r, r.gapMs.get(k))).join(' | ')}`),
    `${'wall time per turn'.padEnd(56)} | ${results.map((r) => cell(r, r.perTurnMs)).join(' | ')}`,
  ];
  console.log(lines.join('\n') + '\n');
  const file = process.env.BENCH_JSON;
  if (file) {
    const all = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    const dispatch = { turns: TURNS, repeats: REPEATS, configs: results.map((r) => ({ ...r.config, perTurnMs: r.perTurnMs, gapsMs: Object.fromEntries(r.gapMs) })) };
    writeFileSync(file, JSON.stringify({ ...all, dispatch }, null, 2));
  }
}, 600_000);
