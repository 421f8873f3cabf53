// The `deliverWebhook` activity: POSTs one event to one URL, signed with the secret of this worker's environment
// (never in the run's history). A 2xx is a delivery; anything else (an error status, a refused connection, no answer
// in time) fails the attempt and Temporal retries it with backoff (WEBHOOK_DELIVERY_OPTIONS), so delivery is at least
// once, each attempt carrying the event's stable id.
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { WEBHOOK_HEADERS, WEBHOOK_SECRET_VARIABLE } from '../core/webhooks.js';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../core/types.js';
import { signWebhook } from '../webhooks/signature.js';
import { startHeartbeat } from './heartbeat.js';

/** One attempt waits this long for the receiver's answer. */
export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 20_000;

export interface DeliverWebhookDeps {
  /** The signing secret (default: DURABLE_AGENT_WEBHOOK_SECRET, read at each attempt). */
  secret?: () => string | undefined;
}

export function createDeliverWebhook(deps: DeliverWebhookDeps = {}) {
  const secretOf = deps.secret ?? (() => process.env[WEBHOOK_SECRET_VARIABLE]);
  return async function deliverWebhook(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
    const ctx = Context.current();
    const stop = startHeartbeat(ctx);
    try {
      const status = await postWebhook(input, secretOf(), ctx.cancellationSignal);
      return { status, attempt: ctx.info.attempt };
    } finally {
      stop();
    }
  };
}

/** One attempt: POSTs the event signed with the first of `secrets` (comma-separated); the receiver's 2xx status, or
 * an ApplicationFailure saying why not: retryable for what can pass later (no answer, a 5xx, 408, 429, no secret on
 * this worker), not retried for what cannot (a 4xx refusal, a URL that does not parse), so a delivery that will
 * never succeed does not hold its run open for the hours of its retries. */
export async function postWebhook(input: WebhookDeliveryInput, secrets: string | undefined, cancelled?: AbortSignal): Promise<number> {
  const secret = secrets?.split(',')[0]?.trim();
  if (!secret) {
    // Retried: another worker (or this one, restarted with it) can deliver it.
    throw ApplicationFailure.retryable(`${WEBHOOK_SECRET_VARIABLE} is not set on this worker: set it to sign webhook deliveries`, 'WebhookSecretMissing');
  }
  if (!URL.canParse(input.url)) {
    throw ApplicationFailure.nonRetryable(`the webhook URL "${input.url.slice(0, 200)}" does not parse: not retried`, 'WebhookBadUrl');
  }
  const body = JSON.stringify(input.event);
  const timestamp = Math.floor(Date.now() / 1000);
  const timeout = AbortSignal.timeout(WEBHOOK_ATTEMPT_TIMEOUT_MS);
  try {
    const response = await fetch(input.url, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'durable-agent-webhooks',
        [WEBHOOK_HEADERS.signature]: signWebhook(secret, timestamp, body),
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.event]: input.event.type,
        [WEBHOOK_HEADERS.delivery]: input.event.id,
      },
      body,
      signal: cancelled ? AbortSignal.any([cancelled, timeout]) : timeout,
    });
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return response.status;
    const answered = `the receiver answered ${response.status} ${response.statusText}`.trim();
    if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
      throw ApplicationFailure.nonRetryable(`${answered}: a refusal, not retried (check the URL and the receiver's secret)`, 'WebhookRefused');
    }
    throw ApplicationFailure.retryable(answered, 'WebhookRejected');
  } catch (err) {
    if (err instanceof ApplicationFailure || cancelled?.aborted) throw err;
    const cause = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    throw ApplicationFailure.retryable(`no answer from the receiver: ${cause}`, 'WebhookUnreachable');
  }
}
