// `localModelCalls`: a run makes each model call as a local activity (patch `local-model-calls`), in the workflow
// task that schedules it, so a turn needs no server round trip for its model call. A worker that would refuse the
// call on the run's queue (busy: `maxModelCalls`; model-queue-only: `modelCallsPerSecond`) refuses it here too, and
// the run sends it down the activity path. Real dev server, real worker, the scripted model through the real SDK.
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it, vi } from 'vitest';
import { cancelRun, getAgentResult, getStatus, getTranscript, getTurnUsage } from '../../src/client/index.js';
import { modelTaskQueue } from '../../src/core/policies.js';
import { agentStatus } from '../../src/workflows/definitions.js';
import { reply, startScriptedModel, text, toolUse, type Script } from '../../src/scripted/index.js';
import { eventKinds, lastToolResults, localActivityTypes, useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const TURNS = 3;
const script: Script = (_req, turn) =>
  turn < TURNS ? reply([text(`step ${turn}`), toolUse('calculator', { expression: `${turn} + 1` })]) : reply([text('done')]);

async function events(workflowId: string): Promise<HistoryEvent[]> {
  return (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}
const scheduledModelCalls = (es: HistoryEvent[]) =>
  es.flatMap((e) => (e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel' ? [e.activityTaskScheduledEventAttributes] : []));
const workflowTasks = (es: HistoryEvent[]) => es.filter((e) => e.workflowTaskCompletedEventAttributes).length;
const markerNames = (es: HistoryEvent[]) => es.flatMap((e) => e.markerRecordedEventAttributes?.markerName ?? []);
/** The answers of the local model calls (a reply, or a refusal). */
const localModelAnswers = (es: HistoryEvent[]) =>
  es.flatMap((e) => {
    const details = e.markerRecordedEventAttributes?.details;
    const data = details?.data?.payloads?.[0];
    if (e.markerRecordedEventAttributes?.markerName !== 'core_local_activity' || !data) return [];
    if (defaultPayloadConverter.fromPayload<{ activity_type: string }>(data).activity_type !== 'callModel') return [];
    return [defaultPayloadConverter.fromPayload<{ refused?: string; reason?: string; stopReason?: string }>(details!.result!.payloads![0])];
  });

describe('local model calls', () => {
  it('make every model call a local activity: no callModel activity, a workflow task fewer per call, the same transcript and usage', async () => {
    const run = (localModelCalls: boolean) =>
      withAgent(env, { script }, async ({ start, model }) => {
        const id = await start('count', { tools: ['calculator'], ...(localModelCalls ? { localModelCalls } : {}) });
        const result = await getAgentResult(env.client, id);
        return {
          result,
          history: await events(id),
          transcript: await getTranscript(env.client, id),
          usage: await getTurnUsage(env.client, id),
          toolResults: lastToolResults(model.requests),
          requests: model.requests.length,
        };
      });
    const local = await run(true);
    const plain = await run(false);

    expect(local.result).toMatchObject({ status: 'completed', text: 'done', steps: TURNS + 1, toolCalls: TURNS });
    expect(local.result.usage).toEqual(plain.result.usage);
    expect(local.transcript).toEqual(plain.transcript);
    expect(local.toolResults).toEqual(plain.toolResults);
    expect(local.requests).toBe(TURNS + 1);

    expect(scheduledModelCalls(local.history)).toHaveLength(0);
    expect(scheduledModelCalls(plain.history)).toHaveLength(TURNS + 1);
    expect(localActivityTypes(local.history).filter((t) => t === 'callModel')).toHaveLength(TURNS + 1);
    expect(localModelAnswers(local.history).map((a) => a.stopReason)).toEqual([...Array(TURNS).fill('tool_use'), 'end_turn']);
    // A model call's result no longer wakes the workflow through the server: one workflow task fewer per call.
    expect(workflowTasks(local.history)).toBe(workflowTasks(plain.history) - (TURNS + 1));
    // Only a run with the setting records the patch.
    expect(markerNames(local.history).length).toBe(markerNames(plain.history).length + TURNS + 1 + 1);

    // The console's per-turn figures read the local calls' markers as they read the activities' results.
    expect(local.usage).toHaveLength(TURNS + 1);
    expect(local.usage).toEqual(plain.usage);
  });

  it('a worker whose model calls must go through the model queue refuses the first local call: it and every later call go there', async () => {
    await withAgent(env, { script, modelCallsPerSecond: 50 }, async ({ start, taskQueue }) => {
      const id = await start('count', { tools: ['calculator'], localModelCalls: true });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'done', steps: TURNS + 1 });
      const history = await events(id);
      expect(localModelAnswers(history)).toEqual([expect.objectContaining({ refused: 'every-call' })]);
      expect(scheduledModelCalls(history).map((a) => a?.taskQueue?.name)).toEqual(Array(TURNS + 1).fill(modelTaskQueue(taskQueue)));
      expect((await getTurnUsage(env.client, id)).map((t) => t.stopReason)).toEqual([...Array(TURNS).fill('tool_use'), 'end_turn']);
    });
  });

  it('a query and a cancel during a long local call reach the run by the workflow task heartbeat (8 s): the query answers, the call is cancelled', async () => {
    await withAgent(env, { script: [{ ...reply([text('too late')]), hold: true }] }, async ({ start, model }) => {
      const id = await start('wait', { tools: [], localModelCalls: true });
      await model.waitForHeld(1, 15_000);
      // `status` asks for 3 s, and the worker answers when it next reports the task: the state comes from the
      // history meanwhile, saying so.
      const status = await getStatus(env.client, id);
      expect(status).toMatchObject({ live: false, workerBusy: true, view: { status: 'running', steps: 0 } });
      expect(status.live === false && status.reason).toMatch(/inside a workflow task \(a local model call, for one\)/);
      let t0 = Date.now();
      expect(await env.client.workflow.getHandle(id).query(agentStatus)).toMatchObject({ status: 'running', steps: 0 });
      const queryMs = Date.now() - t0;
      t0 = Date.now();
      await cancelRun(env.client, id);
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'cancelled', steps: 0 });
      const cancelMs = Date.now() - t0;
      // Held, the call never ends by itself: the task's heartbeat (80 % of the 10 s workflow task timeout) carries
      // the query's answer and the cancel in, so no workflow task timed out or failed on the way.
      const kinds = eventKinds((await env.client.workflow.getHandle(id).fetchHistory()).events);
      expect(kinds).not.toContain('WorkflowTaskTimedOut');
      expect(kinds).not.toContain('WorkflowTaskFailed');
      await vi.waitFor(() => expect(model.requests[0]?.status).toBe(499), { timeout: 5_000 }); // the request was aborted
      console.log(`local model call held: query answered in ${queryMs} ms, cancel took effect in ${cancelMs} ms`);
    });
  }, 40_000);

  it('a worker shutting down during a local call ends it after its shutdownGraceTime instead of waiting for it: the run makes the call again as an activity, which the next worker finishes', async () => {
    const GRACE_MS = 1_000;
    const model = await startScriptedModel({ script: [reply([text('computing'), toolUse('calculator', { expression: '1+1' })]), { ...reply([text('two')]), hold: true }] });
    const taskQueue = `test-${randomUUID()}`;
    try {
      let id = '';
      let stopAsked = 0;
      await withAgent(env, { model, taskQueue, workerOptions: { shutdownGraceTime: GRACE_MS } }, async ({ start }) => {
        id = await start('add', { tools: ['calculator'], localModelCalls: true });
        await model.waitForHeld(1, 15_000); // step 2's call, inside a workflow task
        stopAsked = Date.now(); // returning stops the worker (runUntil)
      });
      const stopMs = Date.now() - stopAsked;
      // Temporal's core would wait for the call as long as it is held (and it still is: released only below); the
      // worker ended it after its grace time, and aborted its request.
      expect(stopMs).toBeGreaterThanOrEqual(GRACE_MS);
      await vi.waitFor(() => expect(model.requests[1]?.status).toBe(499), { timeout: 5_000 }); // the request was aborted

      model.release();
      await withAgent(env, { model, taskQueue }, async () => {
        expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'two', steps: 2, toolCalls: 1 });
      });
      const history = await events(id);
      expect(localModelAnswers(history)).toEqual([
        expect.objectContaining({ stopReason: 'tool_use' }),
        { refused: 'this-call', reason: expect.stringMatching(/^this worker is shutting down/) },
      ]);
      expect(scheduledModelCalls(history).map((a) => a?.taskQueue?.name)).toEqual([taskQueue]);
      // The same request again, by the activity.
      expect(model.requests.map((r) => r.turn)).toEqual([0, 1, 1]);
      expect(model.requests[2].body).toEqual(model.requests[1].body);
      console.log(`worker stopped ${stopMs} ms after its shutdown began, during a held local model call (grace ${GRACE_MS} ms)`);
    } finally {
      await model.close();
    }
  }, 40_000);

  it('a worker runs local calls up to its bound, most of the workflow-task slots its pollers leave free (each holds one while it runs): the others are made as activities, beside them', async () => {
    const MODEL_MS = 1_000;
    const stats = { inFlight: 0, peak: 0 };
    const slow: Script = () => {
      stats.inFlight++;
      stats.peak = Math.max(stats.peak, stats.inFlight);
      setTimeout(() => stats.inFlight--, MODEL_MS);
      return { ...reply([text('done')]), delayMs: MODEL_MS };
    };
    // 6 workflow-task slots, 2 of them held by the pollers: at most 2 local model calls at once.
    const workerOptions = { maxConcurrentWorkflowTaskExecutions: 6, workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 2 } } as const;
    await withAgent(env, { script: slow, workerOptions }, async ({ start }) => {
      const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => start(`run ${i}`, { tools: [], localModelCalls: true })));
      const results = await Promise.all(ids.map((id) => getAgentResult(env.client, id)));
      expect(results.map((r) => r.status)).toEqual(Array(6).fill('completed'));
      const answers = (await Promise.all(ids.map(events))).flatMap(localModelAnswers);
      const refused = answers.filter((a) => a.refused);
      expect(answers.length - refused.length).toBeGreaterThanOrEqual(2); // made locally
      expect(refused.length).toBeGreaterThan(0);
      for (const a of refused) expect(a).toMatchObject({ refused: 'this-call', reason: expect.stringMatching(/running 2 local model calls, its bound/) });
      // The activities ran beside the local calls: more than 2 calls at once.
      expect(stats.peak).toBeGreaterThan(2);
    });
  }, 30_000);

  it('after a busy refusal, a run makes its next call as an activity straight away, then tries locally again', async () => {
    // Run "hold" takes the worker's only model-call turn (maxModelCalls 1) and keeps it until released.
    const script: Script = (req) => {
      if (JSON.stringify(req.messages[0]?.content).includes('hold')) return { ...reply([text('released')]), hold: true };
      const step = req.messages.filter((m) => m.role === 'assistant').length;
      return step < TURNS ? reply([toolUse('calculator', { expression: `${step} + 1` })]) : reply([text('done')]);
    };
    await withAgent(env, { script, maxModelCalls: 1 }, async ({ start, model, taskQueue }) => {
      const holder = await start('hold the turn', { tools: [], localModelCalls: true });
      await model.waitForHeld(1, 15_000);
      const id = await start('count', { tools: ['calculator'], localModelCalls: true });
      // Its first call was refused locally and on the run's queue, and now waits in the model queue for the turn.
      await vi.waitFor(async () => expect(scheduledModelCalls(await events(id)).map((a) => a?.taskQueue?.name)).toContain(modelTaskQueue(taskQueue)), { timeout: 15_000 });
      model.release();
      expect(await getAgentResult(env.client, holder)).toMatchObject({ status: 'completed', text: 'released' });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'done', steps: TURNS + 1 });
      const history = await events(id);
      // Call 1: refused locally, refused on the run's queue, made on the model queue. Call 2: an activity on the run's
      // queue, with no local try. Calls 3 and 4: local again.
      expect(localModelAnswers(history)).toEqual([expect.objectContaining({ refused: 'this-call' }), expect.objectContaining({ stopReason: 'tool_use' }), expect.objectContaining({ stopReason: 'end_turn' })]);
      expect(scheduledModelCalls(history).map((a) => a?.taskQueue?.name)).toEqual([taskQueue, modelTaskQueue(taskQueue), taskQueue]);
    });
  }, 40_000);

  it('maxModelCalls 1: a local call beyond it is refused at once and made as an activity, never two model calls at a time', async () => {
    const MODEL_MS = 400;
    const stats = { inFlight: 0, peak: 0 };
    const slow: Script = (req, turn) => {
      stats.inFlight++;
      stats.peak = Math.max(stats.peak, stats.inFlight);
      setTimeout(() => stats.inFlight--, MODEL_MS);
      return { ...script(req, turn), delayMs: MODEL_MS };
    };
    await withAgent(env, { script: slow, maxModelCalls: 1 }, async ({ start }) => {
      const ids = await Promise.all(['one', 'two', 'three'].map((task) => start(task, { tools: ['calculator'], localModelCalls: true })));
      const results = await Promise.all(ids.map((id) => getAgentResult(env.client, id)));
      expect(results.map((r) => [r.status, r.text, r.steps])).toEqual(Array(3).fill(['completed', 'done', TURNS + 1]));
      const histories = await Promise.all(ids.map(events));
      const answers = histories.flatMap(localModelAnswers);
      const refused = answers.filter((a) => a.refused);
      const activities = histories.flatMap(scheduledModelCalls);
      expect(refused.length).toBeGreaterThan(0);
      for (const a of refused) expect(a.refused).toBe('this-call');
      // Every model call was answered once: locally, or by an activity (a refused call, after a refusal on the run's
      // queue too where the worker was still busy; and the call after a refusal, made as an activity straight away).
      const answered = (await Promise.all(ids.map((id) => getTurnUsage(env.client, id)))).flat();
      expect(answered).toHaveLength(3 * (TURNS + 1));
      expect(answered.length - (answers.length - refused.length)).toBeGreaterThanOrEqual(refused.length);
      expect(activities.length).toBeGreaterThanOrEqual(refused.length);
    });
    expect(stats.peak).toBe(1);
  });
});
