// Webhooks of a run, the pure part: which events there are, what a delivery carries, its stable id (so a receiver
// can de-duplicate an at-least-once delivery), and what a webhook URL must look like. Free of Node built-ins: the
// workflow bundle imports it. Signing lives with the activity (src/activities/webhook.ts) and the receivers'
// helper (src/webhooks/verify.ts); the secret never enters a run's history.
import { sha256Hex } from './sha256.js';
import type { WebhookEvent, WebhookEventType } from './durable-state.js';

export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = Object.freeze([
  'run.completed',
  'run.stopped',
  'run.failed',
  'run.cancelled',
  'approval.needed',
  'guard.fired',
] as const);

/** The environment variable the delivering worker reads the signing secret from. */
export const WEBHOOK_SECRET_VARIABLE = 'DURABLE_AGENT_WEBHOOK_SECRET';

/** The headers of a delivery. */
export const WEBHOOK_HEADERS = Object.freeze({
  signature: 'x-durable-agent-signature',
  timestamp: 'x-durable-agent-timestamp',
  event: 'x-durable-agent-event',
  delivery: 'x-durable-agent-delivery',
} as const);

/** The most webhook URLs a run may have. */
export const MAX_WEBHOOKS = 10;

/** The run event of a run's end status (terminated and timed_out are closes by the server the workflow never sees). */
export function runEndEventType(status: string): WebhookEventType | null {
  const type = `run.${status}` as WebhookEventType;
  return WEBHOOK_EVENT_TYPES.includes(type) ? type : null;
}

/** The id of one event of one run: the same on every attempt, every worker and every replay (derived from the workflow
 * id, the run id and what the event is about), different for every other event. `key` tells apart events of one
 * type in a run (the tool_use id of an approval.needed). */
export function webhookEventId(workflowId: string, runId: string, type: WebhookEventType, key = ''): string {
  return `evt_${sha256Hex(`${workflowId}\n${runId}\n${type}\n${key}`).slice(0, 32)}`;
}

export function webhookEvent(
  type: WebhookEventType,
  run: { workflowId: string; runId: string },
  data: Record<string, unknown>,
  createdAtMs: number,
  key = '',
): WebhookEvent {
  return {
    id: webhookEventId(run.workflowId, run.runId, type, key),
    type,
    createdAt: new Date(createdAtMs).toISOString(),
    workflowId: run.workflowId,
    runId: run.runId,
    data,
  };
}

/** Why `url` cannot be a webhook URL, or null: http(s), a host, no credentials, no spaces. */
export function webhookUrlProblem(url: unknown): string | null {
  if (typeof url !== 'string') return `must be a URL string (got ${typeof url})`;
  const m = /^(https?):\/\/([^\s/?#]+)([^\s]*)$/i.exec(url);
  if (!m) return `"${url.slice(0, 80)}" is not an http:// or https:// URL`;
  if (m[2].includes('@')) return `"${url.slice(0, 80)}" holds credentials: put a secret in DURABLE_AGENT_WEBHOOK_SECRET, not in the URL`;
  if (url.length > 2000) return 'is over 2000 characters';
  if (typeof URL === 'function' && typeof URL.canParse === 'function' && !URL.canParse(url)) return `"${url.slice(0, 80)}" is not a URL that parses`;
  return null;
}

/** The final text of a run's end event, cut to this many characters (the whole result is at GET /v1/runs/{id}/result). */
export const WEBHOOK_TEXT_CHARS = 4000;
