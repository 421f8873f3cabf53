// `localModelCalls`: a run makes each model call as a local activity, in the workflow task that schedules it, so a
// turn needs no server round trip for its model call. Each holds one of its worker's workflow-task slots while it
// runs (Temporal's local activities do); a worker that stops ends them after its grace time, and the run makes the
// call again as an activity. Real dev server, real worker, the scripted model through the real SDK.
import { randomUUID } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it, vi } from 'vitest';
import { cancelRun, getAgentResult, getStatus, getTranscript, getTurnUsage } from '../../src/client/index.js';
import { agentStatus } from '../../src/workflows/definitions.js';
import { reply, startScriptedModel, text, toolUse, type Script } from '../../src/scripted/index.js';
import { eventKinds, lastToolResults, localActivityTypes, useSharedAgent, useTestEnv, withAgent, type AgentHarness } from '../helpers/harness.js';

const env = useTestEnv();
// The worker of the tests that need none of their own configuration (the local run of the first test among them).
const agents = useSharedAgent(env);
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
/** The answers of the local model calls: a reply, or the failure that ended the call. */
type LocalAnswer = { stopReason?: string; failure?: string; type?: string | null };
const localModelAnswers = (es: HistoryEvent[]): LocalAnswer[] =>
  es.flatMap((e): LocalAnswer[] => {
    const details = e.markerRecordedEventAttributes?.details;
    const data = details?.data?.payloads?.[0];
    if (e.markerRecordedEventAttributes?.markerName !== 'core_local_activity' || !data) return [];
    if (defaultPayloadConverter.fromPayload<{ activity_type: string }>(data).activity_type !== 'callModel') return [];
    const failure = e.markerRecordedEventAttributes.failure;
    if (failure) return [{ failure: failure.cause?.message ?? failure.message ?? '', type: failure.cause?.applicationFailureInfo?.type ?? failure.applicationFailureInfo?.type }];
    return [defaultPayloadConverter.fromPayload<LocalAnswer>(details!.result!.payloads![0])];
  });

describe('local model calls', () => {
  it('make every model call a local activity: no callModel activity, a workflow task fewer per call, the same transcript and usage', async () => {
    const run = (localModelCalls: boolean) => {
      const body = async ({ start, model }: AgentHarness) => {
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
      };
      return localModelCalls ? agents.with({ script }, body) : withAgent(env, { script }, body);
    };
    // Two workers (each its task queue and scripted model: the file's, and one of the plain run's own), so the two
    // runs go side by side.
    const [local, plain] = await Promise.all([run(true), run(false)]);

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
    // One local-activity marker per model call, and nothing else recorded.
    expect(markerNames(local.history).length).toBe(markerNames(plain.history).length + TURNS + 1);

    // The console's per-turn figures read the local calls' markers as they read the activities' results.
    expect(local.usage).toHaveLength(TURNS + 1);
    expect(local.usage).toEqual(plain.usage);
  });

  it('a query and a cancel during a long local call reach the run by the workflow task heartbeat (8 s): the query answers, the call is cancelled', async () => {
    await agents.with({ script: [{ ...reply([text('too late')]), hold: true }] }, async ({ start, model }) => {
      const id = await start('wait', { tools: [], localModelCalls: true });
      await model.waitForHeld(1, 15_000);
      // `status` asks for 3 s, and the worker answers when it next reports the task: the state comes from the
      // history meanwhile, saying so.
      const status = await getStatus(env.client, id);
      expect(status).toMatchObject({ live: false, workerBusy: true, view: { status: 'running', steps: 0 } });
      expect(status.live === false && status.reason).toMatch(/inside a workflow task \(a local model call, for one\)/);
      // Held, the call never ends by itself: the task's heartbeat (80 % of the 10 s workflow task timeout) carries
      // the query's answer and the cancel in, so no workflow task timed out or failed on the way.
      expect(await env.client.workflow.getHandle(id).query(agentStatus)).toMatchObject({ status: 'running', steps: 0 });
      await cancelRun(env.client, id);
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'cancelled', steps: 0 });
      const kinds = eventKinds((await env.client.workflow.getHandle(id).fetchHistory()).events);
      expect(kinds).not.toContain('WorkflowTaskTimedOut');
      expect(kinds).not.toContain('WorkflowTaskFailed');
      await vi.waitFor(() => expect(model.requests[0]?.status).toBe(499), { timeout: 5_000 }); // the request was aborted
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
        { failure: expect.stringMatching(/^this worker is shutting down/), type: 'WorkerStopping' },
      ]);
      expect(scheduledModelCalls(history).map((a) => a?.taskQueue?.name)).toEqual([taskQueue]);
      // The same request again, by the activity.
      expect(model.requests.map((r) => r.turn)).toEqual([0, 1, 1]);
      expect(model.requests[2].body).toEqual(model.requests[1].body);
    } finally {
      await model.close();
    }
  }, 40_000);

  it('each local call holds a workflow-task slot while it runs: with 2 slots free of pollers, 6 runs make every call locally, at most 2 at once, and all complete', async () => {
    const MODEL_MS = 300;
    const stats = { inFlight: 0, peak: 0 };
    const slow: Script = () => {
      stats.inFlight++;
      stats.peak = Math.max(stats.peak, stats.inFlight);
      setTimeout(() => stats.inFlight--, MODEL_MS);
      return { ...reply([text('done')]), delayMs: MODEL_MS };
    };
    // 4 workflow-task slots, 2 of them held by the pollers: a third local call waits for a slot, it is never refused.
    const workerOptions = { maxConcurrentWorkflowTaskExecutions: 4, workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 2 } } as const;
    await withAgent(env, { script: slow, workerOptions }, async ({ start }) => {
      const ids = await Promise.all(Array.from({ length: 6 }, (_, i) => start(`run ${i}`, { tools: [], localModelCalls: true })));
      const results = await Promise.all(ids.map((id) => getAgentResult(env.client, id)));
      expect(results.map((r) => r.status)).toEqual(Array(6).fill('completed'));
      const histories = await Promise.all(ids.map(events));
      expect(histories.flatMap(localModelAnswers).map((a) => a.stopReason)).toEqual(Array(6).fill('end_turn'));
      expect(histories.flatMap(scheduledModelCalls)).toEqual([]);
      expect(stats.peak).toBeLessThanOrEqual(4);
    });
  }, 60_000);
});
