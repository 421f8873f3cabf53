// Model calls on their own task queue (`<taskQueue>-model`): `maxModelCalls` is the slots of the worker serving
// that queue, so a model call beyond it waits in the server's queue (not started: no slot held, no timeout
// running) while tool calls go on. Real dev server, real workers, the scripted model through the real SDK.
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import { modelTaskQueue } from '../../src/core/policies.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { defineTool } from '../../src/tools/types.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const SCHEDULED = 1; // temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED
const ms = (t: HistoryEvent['eventTime']) => Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

/** The model calls of a run: the queue each was scheduled on, how long it waited to start, and its attempt. */
async function modelCalls(workflowId: string) {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = new Map<number, HistoryEvent>();
  const calls: Array<{ taskQueue: string; waitedMs: number; attempt: number }> = [];
  for (const e of events) {
    const a = e.activityTaskScheduledEventAttributes;
    if (a?.activityType?.name === 'callModel') scheduled.set(Number(e.eventId), e);
    const started = e.activityTaskStartedEventAttributes;
    const s = started && scheduled.get(Number(started.scheduledEventId));
    if (s) {
      calls.push({
        taskQueue: s.activityTaskScheduledEventAttributes?.taskQueue?.name ?? '',
        waitedMs: ms(e.eventTime) - ms(s.eventTime),
        attempt: started.attempt ?? 0,
      });
    }
  }
  const timedOut = events.filter((e) => e.activityTaskTimedOutEventAttributes).length;
  return { calls, timedOut };
}

describe('model calls on their own task queue', () => {
  it('maxModelCalls 1: a tool call completes while model calls wait in the queue, and a waiting call neither starts nor times out', async () => {
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
      expect(calls).toHaveLength(6);
      // Every model call of these (patched) runs went to the model queue, started once, and none timed out,
      // though the last of them waited for five others.
      for (const c of calls) expect(c).toMatchObject({ taskQueue: modelTaskQueue(taskQueue), attempt: 1 });
      expect(histories.map((h) => h.timedOut)).toEqual([0, 0, 0]);
      // The wait was in the server's queue, before the call started (the old in-activity semaphore started the
      // call at once and waited inside it, holding a slot and its start-to-close timeout).
      expect(Math.max(...calls.map((c) => c.waitedMs))).toBeGreaterThanOrEqual(2 * MODEL_MS);
    });
    expect(stats.peak).toBe(1);
    // At least one tool call ran to its end while another run's model call was waiting for the slot.
    expect(probeSaw.length).toBeGreaterThan(0);
  });
});
