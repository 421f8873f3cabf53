// `durable-agent/webhooks`: the webhooks a run delivers (docs/http-api.md, "Webhooks"). A receiver needs
// `verifyWebhook` (also at the package's root); a test of a receiver signs its own deliveries with `signWebhook`.
export { signWebhook, verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions } from './signature.js';
export { WEBHOOK_EVENT_TYPES, WEBHOOK_HEADERS, WEBHOOK_SECRET_VARIABLE } from '../core/webhooks.js';
export type { WebhookEvent, WebhookEventType } from '../core/types.js';
