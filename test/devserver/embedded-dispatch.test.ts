// The embedded server's dynamic config (EMBEDDED_SERVER_DYNAMIC_CONFIG), seen in a run's history: a tool call is
// handed to the worker in the reply to the workflow task that schedules it (eager activity execution), so the
// server records it started in the same step that scheduled it, instead of ~25-40 ms later through its transfer
// queue and matching (the CLI's defaults). The test servers are started with that config (test/global-setup.ts).
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const ms = (t: HistoryEvent['eventTime']) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;

/** Scheduled → started of each activity of `type` in the run's history (ms). */
async function startDelays(workflowId: string, type: string): Promise<number[]> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduledAt = new Map<number, number>();
  const delays: number[] = [];
  for (const e of events) {
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === type) scheduledAt.set(Number(e.eventId), ms(e.eventTime));
    const started = e.activityTaskStartedEventAttributes;
    const at = started ? scheduledAt.get(Number(started.scheduledEventId)) : undefined;
    if (at !== undefined) delays.push(ms(e.eventTime) - at);
  }
  return delays;
}

describe('the embedded server', () => {
  it('starts a run’s tool calls eagerly: each is recorded started in the same step that scheduled it', async () => {
    const script: Script = (_req, turn) => (turn < 3 ? reply([toolUse('calculator', { expression: `${turn}+1` })]) : reply([text('done')]));
    await withAgent(env, { script }, async ({ start }) => {
      const id = await start('add', { tools: ['calculator'] });
      expect((await getAgentResult(env.client, id)).status).toBe('completed');
      const delays = await startDelays(id, 'runTool');
      expect(delays).toHaveLength(3);
      // Eager: both events are written by the one request that completed the workflow task (microseconds apart).
      // Dispatched through matching instead, a start is a further round trip of several milliseconds at least.
      for (const d of delays) expect(d).toBeLessThan(1);
    });
  });
});
