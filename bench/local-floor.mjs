// `node bench/local-floor.mjs` (after `npm run build`): the bare floor of a turn of two local activities against a
// turn of two activities, on the embedded server's configuration, one worker in this process, 20-turn runs
// interleaved (5 repeats after a warm-up); prints ms per turn and the ratio. BENCHMARKS.md (a), "local model calls".
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startDevServer } from '../dist/devserver/index.js';

const TURNS = 20;
const REPEATS = 5;
Runtime.install({ logger: new DefaultLogger('ERROR') });
const server = await startDevServer({ uiPort: false });
const connection = await NativeConnection.connect({ address: server.address });
const client = new Client({ connection: await Connection.connect({ address: server.address }) });
const workflowBundle = await bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('./local-floor-workflow.ts', import.meta.url)), logger: new DefaultLogger('ERROR') });
const taskQueue = `local-floor-${randomUUID()}`;
const worker = await Worker.create({ connection, taskQueue, workflowBundle, activities: { model: async () => {}, tool: async () => {} } });
const running = worker.run();
const perTurn = async (workflow) => {
  const t0 = performance.now();
  await client.workflow.execute(workflow, { taskQueue, workflowId: randomUUID(), args: [TURNS] });
  return (performance.now() - t0) / TURNS;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
try {
  await perTurn('localLoop');
  await perTurn('remoteLoop');
  const times = { localLoop: [], remoteLoop: [] };
  for (let i = 0; i < REPEATS; i++) for (const w of Object.keys(times)) times[w].push(await perTurn(w));
  const local = median(times.localLoop);
  const remote = median(times.remoteLoop);
  console.log(`two no-op local activities a turn: ${local.toFixed(1)} ms; two no-op activities a turn: ${remote.toFixed(1)} ms; local / activities ${(local / remote).toFixed(2)} (median of ${REPEATS})`);
} finally {
  worker.shutdown();
  await running;
  await client.connection.close();
  await connection.close();
  await server.stop();
}
