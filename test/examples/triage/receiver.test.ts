// The triage bot driven by webhooks: the tracker's signed "issue opened" POST to examples/triage/receiver.js starts
// one run through `serve` (a redelivery starts no second one), and the run's own signed run.completed comes back to
// the receiver, with the issue triaged in the store.
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createTriageReceiver } from '../../../examples/triage/receiver.js';
import { triageScript } from '../../../examples/triage/scripted-model.js';
import { triageTools } from '../../../examples/triage/tools/index.js';
import type { WebhookEvent } from '../../../src/core/types.js';
import { hasPollers } from '../../../src/client/task-queue.js';
import { serve } from '../../../src/serve/index.js';
import { eventually, useTestEnv, withAgent } from '../../helpers/harness.js';
import { freshStore } from './fixture.js';
import { useWebhookSecret } from '../../helpers/webhook-receiver.js';

const env = useTestEnv();
const TOKEN = 'triage-receiver-token';
const AGENT_SECRET = 'triage-agent-webhook-secret';
const TRACKER_SECRET = 'tracker-secret';
useWebhookSecret(AGENT_SECRET);

const signed = (body: string, secret = TRACKER_SECRET) => ({
  'content-type': 'application/json',
  'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
});

describe('the triage receiver', () => {
  it('turns a signed "issue opened" POST into one triage run and hears its signed run.completed', async () => {
    const s = freshStore();
    const events: WebhookEvent[] = [];
    try {
      await withAgent(env, { script: triageScript, tools: triageTools(s.store) }, async (h) => {
        const api = await serve({ client: env.client, port: 0, tokens: { operate: [TOKEN], read: [] }, taskQueue: h.taskQueue, log: () => {} });
        const options = { api: api.url, token: TOKEN, webhookSecret: AGENT_SECRET, trackerSecret: TRACKER_SECRET, publicUrl: '', onRunEvent: (e: WebhookEvent) => events.push(e), log: () => {} };
        const receiver = createTriageReceiver(options);
        await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
        options.publicUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
        const post = (path: string, body: string, headers: Record<string, string>) => fetch(`${options.publicUrl}${path}`, { method: 'POST', headers, body });
        try {
          // `serve` checks the run's tools against what the queue's workers offer, and asks only once the server lists
          // a poller: posting before the worker's first poll would be answered "unknown tool" (the receiver's 502).
          await eventually(() => hasPollers(env.client, h.taskQueue), (polled) => polled === true, 30_000);
          const opened = JSON.stringify({ action: 'opened', issue: { number: 39, title: 'Login times out behind our corporate proxy' } });
          expect((await post('/issue-opened', opened, signed(opened, 'not-the-secret'))).status).toBe(401);
          const edited = JSON.stringify({ action: 'edited', issue: { number: 39 } });
          expect((await post('/issue-opened', edited, signed(edited))).status).toBe(204);
          const first = await post('/issue-opened', opened, signed(opened));
          const run = (await first.json()) as { workflowId: string; attached: boolean };
          expect({ status: first.status, body: run }).toMatchObject({ status: 202 });
          // The tracker delivers again (it does, on a timeout): the same run answers, none is started.
          const again = (await (await post('/issue-opened', opened, signed(opened))).json()) as { workflowId: string; attached: boolean };
          expect(again).toMatchObject({ workflowId: run.workflowId, attached: true });
          const done = await eventually(async () => events.find((e) => e.type === 'run.completed'), (e) => e !== undefined, 30_000);
          expect(done).toMatchObject({ workflowId: run.workflowId, data: { status: 'completed' } });
          expect(s.issue(39).labels).toEqual(['duplicate']);
          expect(s.issue(39).comments.map((c) => c.body)).toEqual(['Duplicate of #21']);
        } finally {
          await new Promise<void>((resolve) => receiver.close(() => resolve()));
          await api.close();
        }
      });
    } finally {
      s.remove();
    }
  });
});
