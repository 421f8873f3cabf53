// How a failed Messages API request becomes a Temporal failure: retried (with the delay the provider asks
// for) or not retried, with a message that names the cause and the fix.
import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { StreamIdleError, StreamInterruptedError } from './stream.js';

/** Statuses retrying cannot fix: the request or the credentials must change. */
const NON_RETRYABLE_STATUSES = new Set([400, 401, 402, 403, 404, 413, 422]);

const FIX_BY_STATUS: Record<number, string> = {
  400: 'the request was rejected as invalid',
  401: 'the API key was not accepted: check ANTHROPIC_API_KEY on the worker',
  402: 'the account needs billing attention',
  403: 'the API key lacks permission for this model or feature',
  404: 'the model or endpoint was not found: check --model / AGENT_MODEL and ANTHROPIC_BASE_URL',
  413: 'the request is too large for the API',
  422: 'the request could not be processed',
};

/** A run that needs what this worker lacks (tools, MCP servers, sub-agents) cannot be fixed by retrying: it fails,
 * naming them: `this run <uses tool(s)> a, b, which this worker does not <have> (it has: c); <fix>`. */
export function workerLacksFailure(what: string, missing: readonly string[], lacks: string, has: readonly string[], fix: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'UnknownTool',
    nonRetryable: true,
    message: `this run ${what} ${missing.join(', ')}, which this worker does not ${lacks} (it has: ${has.join(', ') || 'none'}); ${fix}`,
  });
}

export function missingApiKeyFailure(): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'MissingApiKey',
    nonRetryable: true,
    message:
      'ANTHROPIC_API_KEY is not set on the worker that ran this model call. Set it in the worker environment ' +
      '(or start the worker with --scripted to use the offline scripted model) and resume the run.',
  });
}

/** A 400 that names a request feature the run can do without (compaction, the task budget): the workflow then
 * stops asking for it and falls back (client-side compaction; no task budget). `asked` are the features the
 * request carried. */
export function refusedFeatureFailure(err: unknown, asked: { compaction: boolean; taskBudget: boolean }): ApplicationFailure | null {
  if (!(err instanceof Anthropic.APIError) || err.status !== 400) return null;
  const detail = `${err.apiMessage ?? err.message}`;
  const feature =
    asked.compaction && /context_management|compact/i.test(detail) ? 'compaction' : asked.taskBudget && /task_budget|task-budget/i.test(detail) ? 'task_budget' : null;
  if (!feature) return null;
  return ApplicationFailure.create({
    type: 'FeatureRefused',
    nonRetryable: true,
    message: `the endpoint refused ${feature === 'compaction' ? 'server-side compaction' : 'the task budget'}: ${detail}`,
    details: [feature],
  });
}

/** Turns whatever the SDK threw into the failure Temporal should see. */
export function classifyModelError(err: unknown, baseURL = 'https://api.anthropic.com'): Error {
  if (err instanceof Anthropic.APIConnectionError) {
    // Includes timeouts: transient, retried with backoff.
    return ApplicationFailure.create({
      type: err.constructor.name,
      message: `cannot reach the Messages API at ${baseURL} (${err.message}); check the network and ANTHROPIC_BASE_URL`,
      cause: err,
    });
  }
  if (err instanceof StreamInterruptedError || err instanceof StreamIdleError) {
    // A reply cut off mid-stream is thrown away whole; the call is made again (retryable, with backoff).
    return ApplicationFailure.create({ type: err.name, message: err.message, cause: err });
  }
  if (err instanceof Anthropic.APIError && err.status === undefined && err.error !== undefined) {
    // An `error` event inside a stream that had started (e.g. overloaded_error): the API's own mid-stream
    // failure, transient by nature, so retried like a 5xx.
    const type = err.type ?? 'api_error';
    return ApplicationFailure.create({
      type: 'StreamErrorEvent',
      message: `Anthropic API stream error (${type}): ${err.apiMessage ?? err.message}; the call is retried as a whole`,
    });
  }
  if (!(err instanceof Anthropic.APIError) || err.status === undefined) {
    return err instanceof Error ? err : new Error(String(err));
  }
  const status = err.status;
  const requestId = err.requestID ? ` (request id ${err.requestID})` : '';
  const detail = err.apiMessage ?? err.message;
  if (NON_RETRYABLE_STATUSES.has(status)) {
    return ApplicationFailure.create({
      type: err.constructor.name,
      nonRetryable: true,
      message: `Anthropic API ${status}: ${FIX_BY_STATUS[status]}. ${detail}${requestId}`,
    });
  }
  return ApplicationFailure.create({
    type: err.constructor.name,
    message: `Anthropic API ${status}: ${detail}${requestId}`,
    nextRetryDelay: status === 429 ? retryAfterMs(err.headers) : undefined,
  });
}

/** The delay a 429 asks for: `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return Math.ceil(ms);
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds > 0 ? Math.ceil(seconds * 1000) : undefined;
  const date = Date.parse(value);
  return Number.isFinite(date) && date > now ? date - now : undefined;
}
