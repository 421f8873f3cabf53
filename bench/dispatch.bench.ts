// What bounds a bare activity round trip on the embedded dev server (issue 12: "~100 ms, a fixed delay rather
// than CPU: find what bounds it"). One bare 20-turn run (no-op "model" and "tool" activities), then the time
// between each pair of consecutive history events, averaged: where a turn's time goes. Run once on the default
// dev server and once with eager activity execution (the worker that completes a workflow task gets the
// activity it schedules in the reply, skipping the server's dispatch), side by side in one process.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { it } from 'vitest';
import { startDevServer } from '../src/devserver/index.js';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const TURNS = 20;
const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const eventName = (e: HistoryEvent) => EventType[e.eventType!].replace('EVENT_TYPE_', '');
const eventMs = (e: HistoryEvent) => Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;

/** Mean milliseconds between consecutive events, by the pair of event types. */
function gaps(events: HistoryEvent[]): Map<string, { count: number; meanMs: number }> {
  const sums = new Map<string, number[]>();
  for (let i = 1; i < events.length; i++) {
    const key = `${eventName(events[i - 1])} → ${eventName(events[i])}`;
    sums.set(key, [...(sums.get(key) ?? []), eventMs(events[i]) - eventMs(events[i - 1])]);
  }
  return new Map([...sums].map(([k, v]) => [k, { count: v.length, meanMs: v.reduce((a, b) => a + b, 0) / v.length }]));
}

async function measure(eager: boolean) {
  const server = await startDevServer({
    uiPort: false,
    extraArgs: eager ? ['--dynamic-config-value', 'system.enableActivityEagerExecution=true'] : [],
  });
  const connection = await NativeConnection.connect({ address: server.address });
  const client = new Client({ connection: await Connection.connect({ address: server.address }) });
  const taskQueue = `dispatch-${randomUUID()}`;
  try {
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: await bundleWorkflowCode({
        workflowsPath: fileURLToPath(new URL('./bare-workflow.ts', import.meta.url)),
        logger: new DefaultLogger('ERROR'),
      }),
      activities: { bareModel: async () => {}, bareTool: async () => {} },
    });
    return await worker.runUntil(async () => {
      const run = (turns: number, workflowId = `dispatch-${randomUUID()}`) =>
        client.workflow.execute('bareAgentWorkflow', { taskQueue, workflowId, args: [turns, 0] });
      await run(5); // warm-up
      const workflowId = `dispatch-${randomUUID()}`;
      const t0 = performance.now();
      await run(TURNS, workflowId);
      const perTurnMs = (performance.now() - t0) / TURNS;
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      return { perTurnMs, gaps: gaps(history.events ?? []) };
    });
  } finally {
    await client.connection.close();
    await connection.close();
    await server.stop();
  }
}

it('where a bare activity round trip spends its time on the dev server', async () => {
  const plain = await measure(false);
  const eager = await measure(true);
  const keys = [...plain.gaps.keys()].filter((k) => plain.gaps.get(k)!.count > 1);
  const lines = [
    `\n(e) A bare turn (two no-op activities) on the dev server, ${TURNS} turns: mean time between history events (ms)`,
    `${'from → to'.padEnd(56)} | default | eager activities`,
    ...keys.map((k) => `${k.padEnd(56)} | ${plain.gaps.get(k)!.meanMs.toFixed(1).padStart(7)} | ${(eager.gaps.get(k)?.meanMs ?? NaN).toFixed(1).padStart(16)}`),
    `${'wall time per turn'.padEnd(56)} | ${plain.perTurnMs.toFixed(1).padStart(7)} | ${eager.perTurnMs.toFixed(1).padStart(16)}`,
  ];
  console.log(lines.join('\n') + '\n');
  const file = process.env.BENCH_JSON;
  if (file) {
    const all = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    const asObject = (g: Map<string, { count: number; meanMs: number }>) => Object.fromEntries([...g].map(([k, v]) => [k, v.meanMs]));
    writeFileSync(
      file,
      JSON.stringify({ ...all, dispatch: { turns: TURNS, default: { perTurnMs: plain.perTurnMs, gapsMs: asObject(plain.gaps) }, eager: { perTurnMs: eager.perTurnMs, gapsMs: asObject(eager.gaps) } } }, null, 2),
    );
  }
}, 300_000);
