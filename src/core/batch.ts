// Batch mode (`modelCalls: 'batch'`): the pure part. A model call becomes one request of a Message Batch; its
// `custom_id` names the run and the step, the worker's batcher gathers the calls of all its runs into one batch,
// and the run polls for its request's result with durable timers (docs/background-agents.md). Pure and free of Node
// built-ins: the workflow bundle imports it.
import type { ActivityOptions } from '@temporalio/common';
import { sha256Hex } from './sha256.js';

/** How a worker gathers and polls batches (AgentPluginOptions.modelBatches). */
export interface ModelBatchOptions {
  /** How long the batcher gathers calls, from the first, before it submits them as one batch (ms). */
  windowMs?: number;
  /** The first wait before a run polls its request, and the shortest between polls (ms). */
  pollMs?: number;
  /** The longest wait between two polls (ms): the wait grows with the batch's age up to this. */
  maxPollMs?: number;
}

/** A few seconds: enough for the runs a worker is driving to bring their calls into one batch, nothing next to the
 * minutes a batch takes. Polls start at 10 s and grow to 5 minutes (an hour's batch is polled about 50 times). */
export const BATCH_DEFAULTS = { windowMs: 2_000, pollMs: 10_000, maxPollMs: 300_000 } as const satisfies Required<ModelBatchOptions>;

/** The longest gathering window: the submit activity's timeout must cover it and the batch's creation. */
export const MAX_BATCH_WINDOW_MS = 60_000;

/** How many times one step's call goes into a batch with `batchFallback: 'retry'` before the run fails. */
export const MAX_BATCH_SUBMISSIONS = 3;

/** The submit activity: the window and the creation of the batch, retried like a model call's connection errors. It
 * heartbeats, so a worker that dies while gathering is noticed in seconds and the call submitted by another. */
export const BATCH_SUBMIT_OPTIONS = {
  startToCloseTimeout: MAX_BATCH_WINDOW_MS + 60_000,
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 5 },
} as const satisfies ActivityOptions;

/** A poll or a release: one or two small HTTP requests, as a local activity (a marker in history, no task). */
export const BATCH_POLL_OPTIONS = {
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
} as const satisfies ActivityOptions;

/** The worker's options with their defaults, checked: a bad value is named with its fix. */
export function batchOptions(options: ModelBatchOptions = {}): Required<ModelBatchOptions> {
  const o = { ...BATCH_DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  for (const [key, value] of Object.entries(o)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) {
      throw new Error(`modelBatches.${key} must be a number of milliseconds >= 1 (got ${JSON.stringify(value)})`);
    }
  }
  if (o.windowMs > MAX_BATCH_WINDOW_MS) throw new Error(`modelBatches.windowMs must be at most ${MAX_BATCH_WINDOW_MS} (got ${o.windowMs})`);
  if (o.maxPollMs < o.pollMs) throw new Error(`modelBatches.maxPollMs (${o.maxPollMs}) must be at least pollMs (${o.pollMs})`);
  return o;
}

/** The request's `custom_id` (`^[a-zA-Z0-9_-]{1,64}$`): the workflow id's readable start, the step, the submission,
 * and a hash of the run (workflow id and run id) that makes it unique whatever the id's characters. */
export function batchCustomId(run: { workflowId: string; runId: string }, step: number, submission: number): string {
  const readable = run.workflowId.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 28);
  const hash = sha256Hex(`${run.workflowId}\n${run.runId}`).slice(0, 16);
  return `${readable}-s${step}-${submission}-${hash}`;
}

/** The wait before the next poll: a tenth of the batch's age, within [pollMs, maxPollMs], so a young batch is polled
 * often and one that has run for an hour every few minutes. */
export function nextPollMs(ageMs: number, options: Required<ModelBatchOptions>): number {
  return Math.round(Math.min(options.maxPollMs, Math.max(options.pollMs, ageMs / 10)));
}

/** The HTTP status of a batch request's `errored` result (its error's type), for the direct call's classification. */
export function statusOfErrorType(type: string | undefined): number {
  const statuses: Record<string, number> = {
    invalid_request_error: 400,
    authentication_error: 401,
    billing_error: 402,
    permission_error: 403,
    not_found_error: 404,
    request_too_large: 413,
    rate_limit_error: 429,
    api_error: 500,
    overloaded_error: 529,
  };
  return statuses[type ?? ''] ?? 500;
}

/** "waiting for batch msgbatch_01H… (submitted 4m ago)": `status` and the UI's current details. */
export function waitingForBatchText(batch: { batchId: string; submittedAt: number }, now: number): string {
  return `waiting for batch ${batch.batchId} (submitted ${agoText(now - batch.submittedAt)} ago)`;
}

/** "4m", "1h 5m": how long ago a batch was submitted, for `status`. */
export function agoText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}
