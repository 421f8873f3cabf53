// Signed webhook deliveries: `X-Durable-Agent-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` with the
// secret of DURABLE_AGENT_WEBHOOK_SECRET, and `X-Durable-Agent-Timestamp: <unix seconds>`. The activity signs with
// `signWebhook`; a receiver checks with `verifyWebhook` (exported by the package), which refuses a stale timestamp
// (a replayed delivery) and compares in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_HEADERS } from '../core/webhooks.js';
import type { WebhookEvent } from '../core/durable-state.js';

/** `sha256=<hex>` for this timestamp (unix seconds) and raw body. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

export interface VerifyWebhookOptions {
  /** The shared secret (DURABLE_AGENT_WEBHOOK_SECRET of the workers); a comma-separated list, or an array, accepts
   * any of them (to rotate it without a gap). */
  secret: string | string[];
  /** The raw request body, exactly as received (not re-serialised JSON). */
  body: string;
  /** The request's headers: a Fetch `Headers`, or Node's `IncomingHttpHeaders`. */
  headers: Headers | Record<string, string | string[] | undefined>;
  /** How old a delivery may be (default 300 s): an older timestamp is refused as a replay. */
  toleranceSeconds?: number;
  /** Now, in ms (for tests). */
  now?: number;
}

/** The delivered event, once its signature and timestamp check out; a WebhookVerificationError naming the problem
 * otherwise. De-duplicate on the event's `id`: a delivery is at least once. */
export function verifyWebhook(options: VerifyWebhookOptions): WebhookEvent {
  const header = (name: string): string | undefined => {
    const h = options.headers;
    const v = typeof (h as Headers).get === 'function' ? ((h as Headers).get(name) ?? undefined) : (h as Record<string, string | string[] | undefined>)[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const signature = header(WEBHOOK_HEADERS.signature);
  const stamp = header(WEBHOOK_HEADERS.timestamp);
  if (!signature) throw new WebhookVerificationError(`no ${WEBHOOK_HEADERS.signature} header: not a durable-agent delivery`);
  if (!stamp || !/^\d{1,12}$/.test(stamp)) throw new WebhookVerificationError(`no valid ${WEBHOOK_HEADERS.timestamp} header (unix seconds)`);
  const tolerance = options.toleranceSeconds ?? 300;
  const age = Math.abs((options.now ?? Date.now()) / 1000 - Number(stamp));
  if (age > tolerance) throw new WebhookVerificationError(`the timestamp is ${Math.round(age)} s away from now (more than ${tolerance} s): refused as a replay`);
  const secrets = (Array.isArray(options.secret) ? options.secret : options.secret.split(',')).map((s) => s.trim()).filter(Boolean);
  if (secrets.length === 0) throw new WebhookVerificationError('no secret to verify with: pass the DURABLE_AGENT_WEBHOOK_SECRET of the workers');
  const given = Buffer.from(signature);
  const ok = secrets.some((secret) => {
    const expected = Buffer.from(signWebhook(secret, Number(stamp), options.body));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!ok) throw new WebhookVerificationError('the signature does not match the body: another secret, or a body changed on the way');
  try {
    return JSON.parse(options.body) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}
