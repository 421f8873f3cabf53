// A run's webhooks from the workflow's side: each event the run emits becomes one `deliverWebhook` activity per URL,
// scheduled in a non-cancellable scope (a cancelled run still tells its webhooks it was cancelled), one at a time per
// URL (in the order the run emitted them), and retried with
// backoff for hours; the run closes only once every delivery has settled (an activity does not outlive its
// workflow). Only runs with webhooks schedule anything, so other runs' histories hold no delivery.
import { CancellationScope, log, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import { WEBHOOK_DELIVERY_OPTIONS } from '../core/policies.js';
import { webhookEvent } from '../core/webhooks.js';
import type { WebhookEventType } from '../core/types.js';
import { oneLine } from '../core/transcript.js';

const { deliverWebhook } = proxyActivities<ReturnType<typeof createActivities>>(WEBHOOK_DELIVERY_OPTIONS);

export class Webhooks {
  readonly #sent = new Set<string>();
  readonly #deliveries: Array<Promise<unknown>> = [];
  /** The last delivery to each URL: the next one starts once it has settled, so a receiver gets a run's events in
   * the order the run emitted them. */
  readonly #tails = new Map<string, { delivered: Promise<void>; settled: boolean }>();

  constructor(
    private readonly urls: readonly string[],
    private readonly run: { workflowId: string; runId: string },
    private readonly heartbeatTimeoutMs?: number,
  ) {}

  /** Sends `type` (once per run and `key`) to every webhook URL; returns at once, the deliveries go on. */
  notify(type: WebhookEventType, data: Record<string, unknown>, key = ''): void {
    if (this.urls.length === 0) return;
    const event = webhookEvent(type, this.run, data, Date.now(), key);
    if (this.#sent.has(event.id)) return;
    this.#sent.add(event.id);
    for (const url of this.urls) {
      const start = () =>
        CancellationScope.nonCancellable(() =>
          deliverWebhook.executeWithOptions(
            {
              ...WEBHOOK_DELIVERY_OPTIONS,
              ...(this.heartbeatTimeoutMs ? { heartbeatTimeout: this.heartbeatTimeoutMs } : {}),
              summary: oneLine(`webhook ${type} → ${hostOf(url)}`, 200),
            },
            [{ url, event }],
          ),
        );
      // Scheduled now when nothing is pending for this URL, else once the delivery before it has settled.
      const previous = this.#tails.get(url);
      const tail = { delivered: Promise.resolve(), settled: false };
      tail.delivered = (previous && !previous.settled ? previous.delivered.then(start) : start())
        .then(
          () => undefined,
          (err: unknown) => log.warn(`The ${type} webhook to ${hostOf(url)} was not delivered: ${err instanceof Error ? err.message : String(err)}`),
        )
        .finally(() => (tail.settled = true));
      this.#tails.set(url, tail);
      this.#deliveries.push(tail.delivered);
    }
  }

  /** True while a delivery has not settled (it may be being retried for hours). */
  get pending(): boolean {
    return [...this.#tails.values()].some((tail) => !tail.settled);
  }

  /** True once any delivery was scheduled (only then does the run's end wait for them). */
  get scheduled(): boolean {
    return this.#tails.size > 0;
  }

  #postponedNoted = false;

  /** Says once per run that a continue-as-new waits for deliveries in flight. */
  noteContinueAsNewPostponed(): void {
    if (this.#postponedNoted) return;
    this.#postponedNoted = true;
    log.info('Continue-as-new is postponed until the webhook deliveries in flight have settled; the run goes on meanwhile');
  }

  /** Resolves once every delivery so far has been made or given up. */
  async settled(): Promise<void> {
    while (this.#deliveries.length > 0) await Promise.allSettled(this.#deliveries.splice(0));
  }
}

function hostOf(url: string): string {
  return /^https?:\/\/([^/?#]+)/i.exec(url)?.[1] ?? url;
}
