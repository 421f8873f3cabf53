// One attempt of the deliverWebhook activity (postWebhook) against a local receiver: what it sends and how it fails,
// so Temporal retries it.
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, describe, expect, it } from 'vitest';
import { postWebhook } from '../../src/activities/webhook.js';
import { webhookEvent } from '../../src/core/webhooks.js';
import { verifyWebhook } from '../../src/webhooks/signature.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const event = webhookEvent('run.completed', { workflowId: 'wf-1', runId: 'run-1' }, { status: 'completed', text: 'Done.' }, Date.UTC(2026, 11, 1));
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function failure(p: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

describe('deliverWebhook', () => {
  it('POSTs the event as JSON with its id, type, timestamp and a signature of timestamp.body', async () => {
    receiver = await startWebhookReceiver();
    expect(await postWebhook({ url: receiver.url, event }, 'k1,k0')).toBe(200);
    const [d] = receiver.deliveries;
    expect(JSON.parse(d.body)).toEqual(event);
    expect(d.headers).toMatchObject({ 'content-type': 'application/json', 'x-durable-agent-event': 'run.completed', 'x-durable-agent-delivery': event.id });
    expect(verifyWebhook({ secret: 'k1', body: d.body, headers: d.headers })).toEqual(event);
  });

  it('fails the attempt, retryably, when the receiver answers an error status or cannot be reached', async () => {
    receiver = await startWebhookReceiver(() => 503);
    const rejected = await failure(postWebhook({ url: receiver.url, event }, 'k1'));
    expect(rejected).toMatchObject({ type: 'WebhookRejected', nonRetryable: false });
    expect(rejected.message).toMatch(/answered 503/);
    const unreachable = await failure(postWebhook({ url: 'http://127.0.0.1:9/hook', event }, 'k1'));
    expect(unreachable).toMatchObject({ type: 'WebhookUnreachable', nonRetryable: false });
  });

  it('does not retry what cannot pass later: a 4xx refusal (but 408 and 429 are retried) and a URL that does not parse', async () => {
    let status = 401;
    receiver = await startWebhookReceiver(() => status);
    const refused = await failure(postWebhook({ url: receiver.url, event }, 'k1'));
    expect(refused).toMatchObject({ type: 'WebhookRefused', nonRetryable: true });
    expect(refused.message).toMatch(/answered 401 .*not retried/);
    for (status of [408, 429]) {
      expect(await failure(postWebhook({ url: receiver.url, event }, 'k1'))).toMatchObject({ type: 'WebhookRejected', nonRetryable: false });
    }
    const badUrl = await failure(postWebhook({ url: 'http://%zz/hook', event }, 'k1'));
    expect(badUrl).toMatchObject({ type: 'WebhookBadUrl', nonRetryable: true });
  });

  it('without a secret on the worker, fails the attempt retryably, naming DURABLE_AGENT_WEBHOOK_SECRET, and sends nothing', async () => {
    receiver = await startWebhookReceiver();
    const missing = await failure(postWebhook({ url: receiver.url, event }, undefined));
    expect(missing).toMatchObject({ type: 'WebhookSecretMissing', nonRetryable: false });
    expect(missing.message).toMatch(/DURABLE_AGENT_WEBHOOK_SECRET is not set on this worker/);
    expect(receiver.deliveries).toHaveLength(0);
  });
});
