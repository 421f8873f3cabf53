import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook, WebhookVerificationError } from '../../src/webhooks/signature.js';

const body = JSON.stringify({ id: 'evt_1', type: 'run.completed', data: {} });
const now = 1_800_000_000_000;
const ts = now / 1000;
const headers = (signature: string, timestamp = String(ts)) => ({ 'x-durable-agent-signature': signature, 'x-durable-agent-timestamp': timestamp });

describe('verifyWebhook', () => {
  it('accepts a delivery signed with the secret and returns its event', () => {
    const event = verifyWebhook({ secret: 's3cret', body, headers: headers(signWebhook('s3cret', ts, body)), now });
    expect(event).toMatchObject({ id: 'evt_1', type: 'run.completed' });
  });

  it('reads a Fetch Headers object as well as Node headers', () => {
    const h = new Headers(headers(signWebhook('s3cret', ts, body)));
    expect(verifyWebhook({ secret: 's3cret', body, headers: h, now }).id).toBe('evt_1');
  });

  it('refuses a body changed after signing', () => {
    const signature = signWebhook('s3cret', ts, body);
    expect(() => verifyWebhook({ secret: 's3cret', body: body.replace('completed', 'failed'), headers: headers(signature), now })).toThrow(
      /signature does not match/,
    );
  });

  it('refuses another secret, and accepts any secret of a rotation list', () => {
    const signature = signWebhook('old', ts, body);
    expect(() => verifyWebhook({ secret: 'new', body, headers: headers(signature), now })).toThrow(WebhookVerificationError);
    expect(verifyWebhook({ secret: 'new,old', body, headers: headers(signature), now }).id).toBe('evt_1');
  });

  it('refuses a timestamp older than the tolerance as a replay, even with a valid signature', () => {
    const old = ts - 301;
    expect(() => verifyWebhook({ secret: 's3cret', body, headers: headers(signWebhook('s3cret', old, body), String(old)), now })).toThrow(/replay/);
  });

  it('refuses a signature made for another timestamp', () => {
    expect(() => verifyWebhook({ secret: 's3cret', body, headers: headers(signWebhook('s3cret', ts - 10, body)), now })).toThrow(/does not match/);
  });

  it('names a missing header', () => {
    expect(() => verifyWebhook({ secret: 's', body, headers: {}, now })).toThrow(/x-durable-agent-signature/);
    expect(() => verifyWebhook({ secret: 's', body, headers: { 'x-durable-agent-signature': 'sha256=00' }, now })).toThrow(/x-durable-agent-timestamp/);
  });
});
