// The agent's workflow code alone, CPU per turn, A against B: replays one recorded 10-turn run (the fleet bench's
// shape: a calculator call per turn) REPEATS times with each workflow bundle given, interleaved, and prints the
// process's CPU time (all threads) per replayed turn. A replay runs the same workflow code, activation by
// activation, as a live worker does, without a server or activities, so the figure is the workflow code's and the
// SDK's, free of the server's share and of the load other processes put on the machine.
//   node bench/workflow-cpu.mjs [--repeats 200] BUNDLE... (default: dist/workflow-bundle.js; `npm run build` first)
//   The history is recorded once (a dev server, the scripted model, a worker of dist/) into $TMPDIR.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createAgentWorker, defaultSettings, getAgentResult, startAgent } from '../dist/index.js';
import { workerDataConverter } from '../dist/worker/index.js';
import { startDevServer } from '../dist/devserver/index.js';
import { reply, startScriptedModel, text, toolUse } from '../dist/scripted/index.js';

const TURNS = 10;
const args = process.argv.slice(2);
const at = args.indexOf('--repeats');
const repeats = at >= 0 ? Number(args.splice(at, 2)[1]) : 200;
const bundles = args.length ? args : [fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url))];
const historyFile = path.join(tmpdir(), `durable-agent-workflow-cpu-${TURNS}-turns.json`);
Runtime.install({ logger: new DefaultLogger('ERROR') });

if (!existsSync(historyFile)) {
  const server = await startDevServer({ uiPort: false });
  const model = await startScriptedModel({ script: (_req, turn) => (turn < TURNS - 1 ? reply([toolUse('calculator', { expression: `${turn}+1` })]) : reply([text('done')])) });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const { NativeConnection } = await import('@temporalio/worker');
  const connection = await NativeConnection.connect({ address: server.address });
  const { worker } = await createAgentWorker({ connection, client, taskQueue: 'workflow-cpu', model: { apiKey: 'bench', baseURL: model.url } });
  await worker.runUntil(async () => {
    const { workflowId } = await startAgent(client, { task: 'bench', settings: defaultSettings({ tools: ['calculator'], maxSteps: TURNS + 5, promptCaching: false }), taskQueue: 'workflow-cpu' });
    const result = await getAgentResult(client, workflowId);
    if (result.steps !== TURNS) throw new Error(`the recorded run made ${result.steps} steps`);
    writeFileSync(historyFile, historyToJSON(await client.workflow.getHandle(workflowId).fetchHistory()));
  });
  await connection.close();
  await client.connection.close();
  await model.close();
  await server.stop();
}
const history = historyFromJSON(JSON.parse(readFileSync(historyFile, 'utf8')));

async function replayAll(bundle) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const histories = (async function* () {
    for (let i = 0; i < repeats; i++) yield { workflowId: `wf-${i}`, history };
  })();
  for await (const r of Worker.runReplayHistories({ workflowBundle: { codePath: bundle }, dataConverter: workerDataConverter() }, histories)) {
    if (r.error) throw r.error;
  }
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - t0 };
}

const results = new Map(bundles.map((b) => [b, []]));
await replayAll(bundles[0]); // warm-up
for (let round = 0; round < 3; round++) for (const b of bundles) results.get(b).push(await replayAll(b));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${repeats} replays of a ${TURNS}-turn run per round, 3 rounds interleaved; CPU (all threads) per turn, median`);
for (const [b, rs] of results) {
  const perTurn = median(rs.map((r) => r.cpuMs)) / (repeats * TURNS);
  console.log(`${perTurn.toFixed(3)} ms/turn CPU  (${rs.map((r) => (r.cpuMs / (repeats * TURNS)).toFixed(3)).join(', ')})  ${b}`);
}
