// Where model calls run. A run schedules each model call on its own task queue first, where the worker that
// scheduled it takes it eagerly; a worker already running its `maxModelCalls` refuses it at once (an answer, not a
// wait: no slot held, no timeout running) and the run sends it to the model queue (`<taskQueue>-model`), whose
// worker's slots are `maxModelCalls` too, so it waits in the server's queue while tool calls go on. A worker with a
// fleet-wide `modelCallsPerSecond` (enforced on the model queue only) refuses every call on the run's queue.
// Real dev server, real workers, the scripted model through the real SDK.
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { describe, expect, it, vi } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import { ToolSlotsBesideModelCalls } from '../../src/worker/activity-slots.js';
import { modelTaskQueue } from '../../src/core/policies.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { defineTool } from '../../src/tools/types.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const temporalEnums = temporal.api.enums.v1;
const SCHEDULED = temporalEnums.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED;
const ms = (t: HistoryEvent['eventTime']) => Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

interface ModelCallSeen {
  taskQueue: string;
  waitedMs: number;
  attempt: number;
  /** The worker's answer when it refused the call (`refused`), else undefined. */
  refused?: string;
}

/** The model calls of a run: the queue each was scheduled on, how long it waited to start, its attempt, and
 * whether the worker refused it. */
async function modelCalls(workflowId: string) {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = new Map<number, HistoryEvent>();
  const calls = new Map<number, ModelCallSeen>();
  for (const e of events) {
    const a = e.activityTaskScheduledEventAttributes;
    if (a?.activityType?.name === 'callModel') scheduled.set(Number(e.eventId), e);
    const started = e.activityTaskStartedEventAttributes;
    const s = started && scheduled.get(Number(started.scheduledEventId));
    if (s) {
      calls.set(Number(started.scheduledEventId), {
        taskQueue: s.activityTaskScheduledEventAttributes?.taskQueue?.name ?? '',
        waitedMs: ms(e.eventTime) - ms(s.eventTime),
        attempt: started.attempt ?? 0,
      });
    }
    const completed = e.activityTaskCompletedEventAttributes;
    const call = completed && calls.get(Number(completed.scheduledEventId));
    if (call) {
      const answer = defaultPayloadConverter.fromPayload<{ refused?: string }>(completed.result!.payloads![0]);
      if (answer.refused) call.refused = answer.refused;
    }
  }
  const timedOut = events.filter((e) => e.activityTaskTimedOutEventAttributes).length;
  const failed = events.filter((e) => e.activityTaskFailedEventAttributes).length;
  return { calls: [...calls.values()], timedOut, failed };
}

describe('where model calls run', () => {
  it("a run's model calls run eagerly on its own queue, none refused, and their slots never count as tool calls'", async () => {
    const script: Script = (_req, turn) => (turn < 2 ? reply([toolUse('calculator', { expression: `${turn} + 1` })]) : reply([text('done')]));
    await withAgent(env, { script, tools: undefined }, async ({ start, taskQueue, agent }) => {
      const id = await start('count', { tools: ['calculator'] });
      expect((await getAgentResult(env.client, id)).status).toBe('completed');
      const { calls, failed, timedOut } = await modelCalls(id);
      expect(calls).toHaveLength(3);
      for (const c of calls) expect(c).toEqual({ taskQueue, waitedMs: expect.any(Number), attempt: 1 });
      expect([failed, timedOut]).toEqual([0, 0]);
      // The worker's slots, as the SDK hands their permits back and forth: a model call's slot comes back as a model
      // call's, so what stays counted against the tool calls, once the worker is idle, is its pollers' reservations,
      // the same after three more runs (no count drifts, up or down).
      const slots = (agent.worker.options.tuner.activityTaskSlotSupplier as unknown as { supplier: ToolSlotsBesideModelCalls }).supplier;
      expect(slots).toBeInstanceOf(ToolSlotsBesideModelCalls);
      await vi.waitFor(() => expect(slots.modelCalls).toBe(0));
      const idle = slots.counted;
      expect(idle).toBeGreaterThan(0);
      expect(idle).toBeLessThan(slots.maxToolCalls);
      for (const task of ['two', 'three', 'four']) expect((await getAgentResult(env.client, await start(task, { tools: ['calculator'] }))).status).toBe('completed');
      await vi.waitFor(() => expect([slots.counted, slots.modelCalls]).toEqual([idle, 0]));
    });
  });

  it('maxModelCalls 1: calls beyond it are refused at once and wait in the model queue, never two at a time, while a tool call completes', async () => {
    const stats = { inFlight: 0, peak: 0 };
    const MODEL_MS = 1_000;
    const script: Script = (_req, turn) => {
      stats.inFlight++;
      stats.peak = Math.max(stats.peak, stats.inFlight);
      setTimeout(() => stats.inFlight--, MODEL_MS);
      return { ...(turn === 0 ? reply([toolUse('probe', {})]) : reply([text('done')])), delayMs: MODEL_MS };
    };
    const runIds: string[] = [];
    const probeSaw: string[] = [];
    // The tool looks at the other runs while it runs: is one of them waiting for a model-call slot right now?
    const probe = defineTool<Record<string, unknown>>({
      name: 'probe',
      description: 'looks for a model call waiting in the queue',
      inputSchema: { type: 'object' },
      async execute() {
        for (const id of runIds) {
          const { raw } = await env.client.workflow.getHandle(id).describe();
          for (const p of raw.pendingActivities ?? []) {
            if (p.activityType?.name === 'callModel' && p.state === SCHEDULED) probeSaw.push(id);
          }
        }
        return 'probed';
      },
    });
    await withAgent(env, { script, tools: [probe], maxModelCalls: 1 }, async ({ start, taskQueue }) => {
      for (const task of ['one', 'two', 'three']) runIds.push(await start(task, { tools: ['probe'] }));
      const results = await Promise.all(runIds.map((id) => getAgentResult(env.client, id)));
      expect(results.map((r) => [r.status, r.text, r.toolCalls])).toEqual(Array(3).fill(['completed', 'done', 1]));

      const histories = await Promise.all(runIds.map(modelCalls));
      const calls = histories.flatMap((h) => h.calls);
      const refused = calls.filter((c) => c.refused);
      const onModelQueue = calls.filter((c) => c.taskQueue === modelTaskQueue(taskQueue));
      // Six model calls answered; each refusal on the run's queue was followed by the same call on the model queue.
      expect(calls.length - refused.length).toBe(6);
      expect(refused.length).toBeGreaterThan(0);
      for (const c of refused) expect(c).toMatchObject({ taskQueue, refused: 'this-call', attempt: 1 });
      expect(onModelQueue).toHaveLength(refused.length);
      for (const c of calls) expect(c.attempt).toBe(1);
      expect(histories.map((h) => [h.timedOut, h.failed])).toEqual(Array(3).fill([0, 0]));
      // The wait was in the server's queue, before the call started: a call on the model queue waited for others.
      expect(Math.max(...onModelQueue.map((c) => c.waitedMs))).toBeGreaterThanOrEqual(MODEL_MS);
    });
    expect(stats.peak).toBe(1);
    // At least one tool call ran to its end while another run's model call was waiting for the slot.
    expect(probeSaw.length).toBeGreaterThan(0);
  });

  it('a model call behind busy tool slots (maxToolCalls 1, held by a long tool call) goes to the model queue after the run queue start timeout', async () => {
    let release: () => void = () => undefined;
    const holding = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    const hold = defineTool<Record<string, unknown>>({
      name: 'hold',
      description: 'holds the only tool slot until released',
      inputSchema: { type: 'object' },
      async execute() {
        held = true;
        await holding;
        return 'released';
      },
    });
    const script: Script = (req) => (req.tools?.length ? (req.messages.length === 1 ? reply([toolUse('hold', {})]) : reply([text('held')])) : reply([text('answered')]));
    await withAgent(env, { script, tools: [hold], workerOptions: { maxConcurrentActivityTaskExecutions: 1 } }, async ({ start, taskQueue }) => {
      const holder = await start('hold the slot', { tools: ['hold'] });
      await vi.waitFor(() => expect(held).toBe(true), { timeout: 15_000 });
      const other = await start('no tools', { tools: [] });
      const result = await getAgentResult(env.client, other);
      expect(result).toMatchObject({ status: 'completed', text: 'answered' });
      expect(held).toBe(true); // answered while the tool call still held the slot
      const events = (await env.client.workflow.getHandle(other).fetchHistory()).events ?? [];
      const timedOut = events.flatMap((e) => e.activityTaskTimedOutEventAttributes?.failure?.timeoutFailureInfo?.timeoutType ?? []);
      expect(timedOut).toEqual([temporalEnums.TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START]);
      const { calls } = await modelCalls(other);
      expect(calls.map((c) => c.taskQueue)).toEqual([modelTaskQueue(taskQueue)]); // the timed-out one never started
      release();
      expect((await getAgentResult(env.client, holder)).status).toBe('completed');
    });
  }, 60_000);

  it('a worker with modelCallsPerSecond refuses the first call on the run queue for the whole run: every later call goes to the model queue', async () => {
    const script: Script = (_req, turn) => (turn < 2 ? reply([toolUse('calculator', { expression: '2 + 2' })]) : reply([text('done')]));
    await withAgent(env, { script, modelCallsPerSecond: 50 }, async ({ start, taskQueue }) => {
      const id = await start('count', { tools: ['calculator'] });
      expect((await getAgentResult(env.client, id)).status).toBe('completed');
      const { calls } = await modelCalls(id);
      expect(calls.map((c) => [c.taskQueue, c.refused])).toEqual([
        [taskQueue, 'every-call'],
        [modelTaskQueue(taskQueue), undefined],
        [modelTaskQueue(taskQueue), undefined],
        [modelTaskQueue(taskQueue), undefined],
      ]);
    });
  });
});
