// A worker SIGKILLed mid-run and replaced: the run's trace holds each completed step once. The killed worker
// exported the spans of the steps it finished; the new one replays them (exporting nothing for them) and exports
// the rest, with the same trace and span ids for the run's own spans (the workflow's seeded randomness).
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { reply, startScriptedModel, text, toolUse, type ScriptTurn } from '../../src/scripted/index.js';
import { openTestEnv, type TestEnv } from '../helpers/harness.js';
import { ancestorsOf, startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';
import { sigkill, startWorkerProcess } from '../helpers/worker-process.js';
import { testServerAddress } from '../helpers/test-server.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash-worker.mjs', import.meta.url));
const TURNS = 3;
/** OTLP's STATUS_CODE_ERROR. */
const SPAN_STATUS_ERROR = 2;

let env: TestEnv;
let receiver: OtlpReceiver;
beforeAll(async () => {
  env = await openTestEnv();
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await env?.close();
  await receiver?.close();
});

/** Turn k < TURNS asks for slow_step k, then the answer; turn 2 waits for the test. */
const script: ScriptTurn[] = [
  ...Array.from({ length: TURNS }, (_, k) => ({ ...reply([text(`Doing step ${k}.`), toolUse('slow_step', { n: k })]), hold: k === 2 })),
  reply([text('All steps are done.')]),
];

describe('traces of a run whose worker is killed', () => {
  it('a worker SIGKILLed between turns and replaced leaves one span per completed step, all in one trace under the one invoke_agent span', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'traces-crash-'));
    const model = await startScriptedModel({ script });
    const taskQueue = `traces-crash-${randomUUID()}`;
    const workers: ChildProcess[] = [];
    const startWorker = async () => {
      workers.push(
        await startWorkerProcess(WORKER, {
          TEMPORAL_ADDRESS: testServerAddress(),
          AGENT_TASK_QUEUE: taskQueue,
          ANTHROPIC_BASE_URL: model.url,
          CRASH_DIR: dir,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
          OTEL_BSP_SCHEDULE_DELAY: '50',
        }),
      );
    };
    try {
      await startWorker();
      const settings = defaultSettings({ tools: ['slow_step'], heartbeatTimeoutMs: 2_000 });
      // Started with a trace (Temporal's client interceptor; this process exports nothing itself): the run is traced.
      const traced = new Client({ connection: env.client.connection, dataConverter: env.dataConverter, interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } });
      const { workflowId } = await startAgent(traced, { task: 'do three steps', settings, taskQueue });
      await model.waitForHeld(1, 20_000); // steps 0 and 1 are done; the third model call is in flight
      // The killed worker has exported the completed steps' spans (a batch every 50 ms).
      await vi.waitFor(() => expect(receiver.spans.filter((s) => s.name === 'execute_tool slow_step')).toHaveLength(2), { timeout: 10_000, interval: 50 });
      await vi.waitFor(() => expect(receiver.spans.filter((s) => s.name.startsWith('chat '))).toHaveLength(2), { timeout: 10_000, interval: 50 });
      // And the workflow's spans of those steps (ended in the workflow task after each step, exported through a sink).
      const named = (name: string) => receiver.spans.filter((s) => s.name === name);
      await vi.waitFor(() => expect([named('StartActivity:callModel').length, named('StartActivity:runTool').length]).toEqual([2, 2]), { timeout: 10_000, interval: 50 });
      const chatsBeforeKill = receiver.spans.filter((s) => s.name.startsWith('chat '));
      await sigkill(workers[0]);
      model.release(2);
      await startWorker();
      expect((await getAgentResult(env.client, workflowId)).status).toBe('completed');
      await vi.waitFor(() => expect(receiver.spans.filter((s) => s.name.startsWith('invoke_agent '))).toHaveLength(1), { timeout: 15_000, interval: 50 });
      // Every model call answered: one distinct response per turn (a retried attempt answers with the same id).
      await vi.waitFor(() => expect(new Set(receiver.spans.filter((s) => s.name.startsWith('chat ')).map((s) => s.attributes['gen_ai.response.id']).filter(Boolean)).size).toBe(TURNS + 1), { timeout: 10_000, interval: 50 });

      const spans = receiver.spans;
      const [agent] = spans.filter((s) => s.name.startsWith('invoke_agent '));
      expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([agent.traceId]));
      // No span twice (same id), and each step once: a chat per model call, an execute_tool per tool call.
      expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
      // The steps the killed worker completed (before the kill) are each reported once: the new worker replayed them
      // and exported nothing for them. A step after the kill may report more than one attempt: on a loaded machine an
      // attempt can miss its 2 s heartbeat and be retried, and each attempt is a span of its own (CI saw one such).
      const chats = spans.filter((s) => s.name.startsWith('chat '));
      const responses = chats.map((s) => s.attributes['gen_ai.response.id']);
      for (const s of chatsBeforeKill) expect(responses.filter((id) => id === s.attributes['gen_ai.response.id'])).toHaveLength(1);
      expect(new Set(responses.filter(Boolean)).size).toBe(TURNS + 1);
      expect(chats.filter((s) => !s.attributes['gen_ai.response.id']).every((s) => s.statusCode === SPAN_STATUS_ERROR)).toBe(true);
      const toolCalls = spans.filter((s) => s.name === 'execute_tool slow_step').map((s) => s.attributes['gen_ai.tool.call.id']);
      expect(toolCalls.filter((id) => id === 'toolu_0_1' || id === 'toolu_1_1').sort()).toEqual(['toolu_0_1', 'toolu_1_1']);
      expect(new Set(toolCalls)).toEqual(new Set(['toolu_0_1', 'toolu_1_1', 'toolu_2_1']));
      const count = (name: string) => spans.filter((s) => s.name === name).length;
      expect([count('RunWorkflow:agentWorkflow'), count('StartActivity:callModel'), count('StartActivity:runTool'), count('StartActivity:describeTools')]).toEqual([1, TURNS + 1, TURNS, 1]);
      // The spans the killed worker exported hang under the invoke_agent span the new worker exported: same ids.
      for (const s of spans.filter((x) => x.name.startsWith('chat ') || x.name.startsWith('execute_tool '))) {
        expect(ancestorsOf(s, spans).map((a) => a.name)).toContain(agent.name);
      }
      expect(agent.attributes['durable_agent.steps']).toBe(TURNS + 1);
    } finally {
      for (const w of workers) await sigkill(w);
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
