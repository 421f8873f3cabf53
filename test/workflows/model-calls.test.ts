// Where model calls run: each is an activity on the run's own task queue (where Temporal hands it straight back to
// the worker that scheduled it, eagerly, when that worker has a free slot), bounded with the tool calls by the
// worker's activity slots (`maxActivities`, Temporal's maxConcurrentActivityTaskExecutions): a call beyond them waits
// in the server's queue. No other queue, no other worker. Real dev server, real workers, the scripted model through
// the real SDK; proved from the history's events.
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

async function history(workflowId: string): Promise<HistoryEvent[]> {
  return (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

/** The activities of a run in the order the history records their starts and ends. */
function activityTimeline(events: HistoryEvent[]): Array<{ type: string; event: 'started' | 'closed'; id: number }> {
  const typeOf = new Map<number, string>();
  const out: Array<{ type: string; event: 'started' | 'closed'; id: number }> = [];
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) typeOf.set(Number(e.eventId), scheduled.activityType?.name ?? '');
    const started = e.activityTaskStartedEventAttributes;
    if (started) out.push({ type: typeOf.get(Number(started.scheduledEventId))!, event: 'started', id: Number(started.scheduledEventId) });
    const closed = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes ?? e.activityTaskTimedOutEventAttributes;
    if (closed) out.push({ type: typeOf.get(Number(closed.scheduledEventId))!, event: 'closed', id: Number(closed.scheduledEventId) });
  }
  return out;
}

describe('model calls', () => {
  it("are activities on the run's own task queue, each started once and none failed", async () => {
    const script: Script = (_req, turn) => (turn < 2 ? reply([toolUse('calculator', { expression: `${turn} + 1` })]) : reply([text('done')]));
    await withAgent(env, { script, tools: undefined }, async ({ start, taskQueue }) => {
      const id = await start('count', { tools: ['calculator'] });
      expect((await getAgentResult(env.client, id)).status).toBe('completed');
      const events = await history(id);
      const modelCalls = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel');
      expect(modelCalls.map((e) => e.activityTaskScheduledEventAttributes?.taskQueue?.name)).toEqual([taskQueue, taskQueue, taskQueue]);
      expect(events.filter((e) => e.activityTaskStartedEventAttributes).map((e) => e.activityTaskStartedEventAttributes?.attempt)).toEqual([1, 1, 1, 1, 1]);
      expect(events.filter((e) => e.activityTaskFailedEventAttributes || e.activityTaskTimedOutEventAttributes)).toEqual([]);
    });
  });

  it('maxActivities 1: model and tool calls share the one slot, never two running at once, and the run completes', async () => {
    // Two tool calls in one turn: scheduled together, they still run one after the other.
    const script: Script = [
      reply([toolUse('calculator', { expression: '1 + 1' }), toolUse('calculator', { expression: '2 + 2' })]),
      reply([toolUse('calculator', { expression: '3 + 3' })]),
      reply([text('2, 4 and 6')]),
    ];
    await withAgent(env, { script, tools: undefined, maxActivities: 1 }, async ({ start }) => {
      const id = await start('add', { tools: ['calculator'] });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: '2, 4 and 6', toolCalls: 3 });
      const timeline = activityTimeline(await history(id));
      expect(timeline.filter((t) => t.event === 'started').map((t) => t.type)).toEqual(['callModel', 'runTool', 'runTool', 'callModel', 'runTool', 'callModel']);
      // Each start is followed by its own end before the next start: one at a time.
      for (let i = 0; i < timeline.length; i += 2) expect([timeline[i].event, timeline[i + 1].event, timeline[i + 1].id]).toEqual(['started', 'closed', timeline[i].id]);
    });
  });
});
