// Webhooks of a run, end to end: a real worker delivers each event with the deliverWebhook activity, signed, retried
// with backoff until the receiver takes it, every attempt with the same event id.
import { describe, expect, it } from 'vitest';
import { approveToolCall, getAgentResult, getStatus } from '../../src/client/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { verifyWebhook } from '../../src/webhooks/signature.js';
import { scheduledActivities, useSharedAgent, useTestEnv, eventually } from '../helpers/harness.js';
import { startWebhookReceiver, type Delivery, useWebhookSecret } from '../helpers/webhook-receiver.js';
import type { WebhookEvent } from '../../src/core/types.js';
import { findPlainText, rawHistory } from '../helpers/plaintext.js';

const env = useTestEnv();

/** The types of the activities of a run (its current run) that have completed, in the order they did. */
async function scheduledActivityCompletions(workflowId: string): Promise<string[]> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const typeOf = new Map(events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [[String(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name ?? '']] : [])));
  return events.flatMap((e) => (e.activityTaskCompletedEventAttributes ? [typeOf.get(String(e.activityTaskCompletedEventAttributes.scheduledEventId)) ?? ''] : []));
}
const SECRET = 'test-webhook-secret';
useWebhookSecret(SECRET);
// One worker for all the file's tests (started once the secret is set, as a worker of the webhooks' user would be).
const agents = useSharedAgent(env);

const verified = (d: Delivery): WebhookEvent => verifyWebhook({ secret: SECRET, body: d.body, headers: d.headers });

describe('webhooks', () => {
  it('a receiver that answers 500 twice gets the event on the third try, with a valid signature and the same id each time', async () => {
    const receiver = await startWebhookReceiver((n) => (n <= 2 ? 500 : 200));
    try {
      await agents.with({ script: [reply([text('Done.')])] }, async (h) => {
        const id = await h.start('say done', { webhooks: [receiver.url] });
        const result = await getAgentResult(env.client, id);
        expect(result.status).toBe('completed');
        // The run closes only once its delivery has settled: all three attempts are in by now.
        expect(receiver.deliveries).toHaveLength(3);
        const events = receiver.deliveries.map(verified);
        expect(new Set(events.map((e) => e.id)).size).toBe(1);
        expect(events[2]).toMatchObject({ type: 'run.completed', workflowId: id, runId: result.runId, data: { status: 'completed', text: 'Done.' } });
        expect(receiver.deliveries[2].headers['x-durable-agent-event']).toBe('run.completed');
        expect(receiver.deliveries[2].headers['x-durable-agent-delivery']).toBe(events[2].id);
        expect(await scheduledActivities(env.client, id)).toEqual(['callModel', 'deliverWebhook']);
        // The secret is nowhere in the run's history, searched as stored (payload bytes included); the control: the
        // same search finds the run's own words there.
        const history = await rawHistory(env.client, id);
        expect(findPlainText(history, ['Done.'])).not.toEqual([]);
        expect(findPlainText(history, [SECRET])).toEqual([]);
      });
    } finally {
      await receiver.close();
    }
  });

  it('sends approval.needed when a call waits for a decision, then run.completed, to every URL', async () => {
    const a = await startWebhookReceiver();
    const b = await startWebhookReceiver();
    try {
      const script = [reply([toolUse('calculator', { expression: '2 + 2' })]), reply([text('4')])];
      await agents.with({ script }, async (h) => {
        const id = await h.start('add', { tools: ['calculator'], approve: ['calculator'], webhooks: [a.url, b.url] });
        await eventually(async () => a.deliveries.length, (n) => n === 1);
        const needed = verified(a.deliveries[0]);
        expect(needed).toMatchObject({ type: 'approval.needed', data: { name: 'calculator', input: { expression: '2 + 2' } } });
        const status = await getStatus(env.client, id);
        expect(status.live && status.view.pendingApprovals[0].toolUseId).toBe(needed.data.toolUseId);
        await approveToolCall(env.client, id);
        await getAgentResult(env.client, id);
        for (const r of [a, b]) expect(r.deliveries.map((d) => verified(d).type)).toEqual(['approval.needed', 'run.completed']);
      });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a delivery in flight does not hold the job at a continue-as-new: it goes on in the run, and continues as new once the delivery has settled', async () => {
    const receiver = await startWebhookReceiver((n) => (n === 1 ? 'hold' : 200));
    try {
      const search = (q: string) => reply([toolUse('web_search', { query: q })]);
      // The fourth model call is held until the delivery has settled: without it a fast run could reach its answer
      // first, and end without a turn left to continue as new at.
      const script = [reply([toolUse('calculator', { expression: '2 + 2' })]), search('a'), search('b'), { ...search('c'), hold: true }, reply([text('done')])];
      await agents.with({ script }, async (h) => {
        const id = await h.start('add, then look around', { tools: ['calculator', 'web_search'], approve: ['calculator'], continueAsNewAfterSteps: 1, webhooks: [receiver.url] });
        await eventually(async () => receiver.deliveries.length, (n) => n === 1);
        await approveToolCall(env.client, id);
        // The approval.needed delivery is still held by the receiver, yet the run takes its next turns.
        await h.model.waitForHeld(1, 20_000);
        expect(receiver.deliveries).toHaveLength(1);
        receiver.release();
        // The delivery settles (its activity completes) while the run waits in its held model call.
        await eventually(async () => (await scheduledActivityCompletions(id)).includes('deliverWebhook'), (settled) => settled, 20_000);
        h.model.release();
        const result = await getAgentResult(env.client, id);
        expect(result).toMatchObject({ status: 'completed', text: 'done' });
        expect(result.runsUsed).toBeGreaterThan(1);
        expect(receiver.deliveries.map((d) => verified(d).type)).toEqual(['approval.needed', 'run.completed']);
      });
    } finally {
      await receiver.close();
    }
  });

  it('sends guard.fired then run.stopped when a guard stops the run, in that order even when the first needs a retry', async () => {
    const receiver = await startWebhookReceiver((n) => (n === 1 ? 500 : 200));
    try {
      const loop = [reply([toolUse('calculator', { expression: '1 + 1' })]), reply([toolUse('calculator', { expression: '2 + 2' })])];
      await agents.with({ script: loop }, async (h) => {
        const id = await h.start('loop', { tools: ['calculator'], maxSteps: 1, summaryOn: [], webhooks: [receiver.url] });
        const result = await getAgentResult(env.client, id);
        expect(result.guard).toBe('max_steps');
        const events = receiver.deliveries.map(verified);
        // One URL gets a run's events one at a time: run.stopped waits for guard.fired's second attempt.
        expect(events.map((e) => e.type)).toEqual(['guard.fired', 'guard.fired', 'run.stopped']);
        expect(events[0].data).toMatchObject({ guard: 'max_steps' });
      });
    } finally {
      await receiver.close();
    }
  });

  it('a run without webhooks schedules no delivery', async () => {
    await agents.with({ script: [reply([text('Done.')])] }, async (h) => {
      const id = await h.start('say done');
      await getAgentResult(env.client, id);
      expect(await scheduledActivities(env.client, id)).not.toContain('deliverWebhook');
    });
  });
});
