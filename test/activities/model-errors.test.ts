// The provider error policy: which Messages API failures Temporal retries, after what delay, and what the
// user reads when a run fails. Errors are the SDK's own classes, built as the SDK builds them.
import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { classifyModelError, missingApiKeyFailure, refusedFeatureFailure, retryAfterMs } from '../../src/activities/model-errors.js';
import { StreamIdleError, StreamInterruptedError } from '../../src/activities/stream.js';

const apiError = (status: number, message: string, headers: Record<string, string> = {}) =>
  Anthropic.APIError.generate(
    status,
    { type: 'error', error: { type: 'some_error', message }, request_id: 'req_test123' },
    undefined,
    new Headers({ 'request-id': 'req_test123', ...headers }),
  );

const classify = (err: unknown): ApplicationFailure => {
  const failure = classifyModelError(err);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  return failure as ApplicationFailure;
};

describe('retryAfterMs', () => {
  const NOW = Date.UTC(2026, 9, 10, 12, 0, 0); // a whole second: HTTP dates have second resolution

  it('reads retry-after-ms, rounding up', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500' }), NOW)).toBe(1500);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500.2' }), NOW)).toBe(1501);
  });

  it('prefers retry-after-ms over retry-after', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '10' }), NOW)).toBe(250);
  });

  it('falls back to retry-after when retry-after-ms is absent, zero or not a number', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '0', 'retry-after': '3' }), NOW)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': 'soon', 'retry-after': '3' }), NOW)).toBe(3000);
  });

  it('reads retry-after in seconds, fractions included', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), NOW)).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }), NOW)).toBe(500);
  });

  it('reads retry-after as an HTTP date', () => {
    const in30s = new Date(NOW + 30_000).toUTCString();
    expect(retryAfterMs(new Headers({ 'retry-after': in30s }), NOW)).toBe(30_000);
  });

  it('has no delay for a date in the past, zero, garbage, or no header at all', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(NOW - 5_000).toUTCString() }), NOW)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': '0' }), NOW)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'whenever' }), NOW)).toBeUndefined();
    expect(retryAfterMs(new Headers(), NOW)).toBeUndefined();
    expect(retryAfterMs(undefined, NOW)).toBeUndefined();
  });
});

describe('classifyModelError: statuses retrying cannot fix', () => {
  it.each([
    [400, 'BadRequestError', /invalid/],
    [401, 'AuthenticationError', /API key was not accepted.*ANTHROPIC_API_KEY/],
    [403, 'PermissionDeniedError', /permission/],
    [404, 'NotFoundError', /model or endpoint was not found/],
    [413, 'ContentTooLargeError', /too large/],
    [422, 'UnprocessableEntityError', /could not be processed/],
  ])('%i is non-retryable, typed %s, and names the cause, the API message and the request id', (status, type, fix) => {
    const failure = classify(apiError(status, 'the provider says why'));
    expect(failure.nonRetryable).toBe(true);
    expect(failure.type).toBe(type);
    expect(failure.message).toMatch(new RegExp(`^Anthropic API ${status}: `));
    expect(failure.message).toMatch(fix);
    expect(failure.message).toContain('the provider says why');
    expect(failure.message).toContain('request id req_test123');
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it('leaves the request id out when the response had none', () => {
    const err = Anthropic.APIError.generate(400, { type: 'error', error: { type: 'x', message: 'bad' } }, undefined, new Headers());
    const failure = classify(err);
    expect(failure.message).not.toMatch(/request id/);
    expect(failure.message).toContain('bad');
  });
});

describe('classifyModelError: transient failures are retried', () => {
  it('429 is retried after the delay retry-after asks for', () => {
    const failure = classify(apiError(429, 'rate limited', { 'retry-after': '2' }));
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe('RateLimitError');
    expect(failure.nextRetryDelay).toBe(2000);
    expect(failure.message).toMatch(/Anthropic API 429: rate limited \(request id req_test123\)/);
  });

  it('429 without a retry-after header keeps the policy backoff', () => {
    const failure = classify(apiError(429, 'rate limited'));
    expect(failure.nonRetryable).toBe(false);
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it.each([
    [500, 'InternalServerError'],
    [503, 'ServiceUnavailableError'],
    [529, 'OverloadedError'],
    [408, 'RequestTimeoutError'],
    [409, 'ConflictError'],
  ])('%i is retried with the policy backoff (%s)', (status, type) => {
    const failure = classify(apiError(status, 'try again', { 'retry-after': '7' }));
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe(type);
    expect(failure.nextRetryDelay).toBeUndefined();
    expect(failure.message).toContain(`Anthropic API ${status}: try again`);
  });

  it('connection errors and timeouts are retried, with a message naming the endpoint and the fix', () => {
    for (const err of [new Anthropic.APIConnectionError({ message: 'socket hang up' }), new Anthropic.APIConnectionTimeoutError()]) {
      const failure = classify(err);
      expect(failure.nonRetryable).toBe(false);
      expect(failure.message).toMatch(/^cannot reach the Messages API at https:\/\/api\.anthropic\.com \(.+\); check the network and ANTHROPIC_BASE_URL$/);
      expect(failure.cause).toBe(err);
    }
  });

  it('passes anything that is not an API error through unchanged', () => {
    const plain = new TypeError('a bug');
    expect(classifyModelError(plain)).toBe(plain);
    const abort = new Anthropic.APIUserAbortError();
    expect(classifyModelError(abort)).toBe(abort);
    const wrapped = classifyModelError('a string');
    expect(wrapped).toBeInstanceOf(Error);
    expect(wrapped.message).toBe('a string');
  });
});

describe('classifyModelError: streams that break off', () => {
  it('a stream cut mid-message or gone silent is retried as a whole call', () => {
    for (const err of [
      new StreamInterruptedError('the response stream broke off after 5 events (terminated); the call is retried as a whole'),
      new StreamIdleError('the response stream sent nothing for 180 s after 12 events; the call is retried as a whole'),
    ]) {
      const failure = classify(err);
      expect(failure.nonRetryable).toBe(false);
      expect(failure.type).toBe(err.name);
      expect(failure.message).toBe(err.message);
    }
  });

  it('an error event inside a started stream (overloaded_error) is retried, naming the API error type', () => {
    // What the SDK throws for `event: error` in an SSE stream: an APIError without a status.
    const err = new Anthropic.APIError(undefined, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, undefined, new Headers(), 'overloaded_error');
    const failure = classify(err);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.type).toBe('StreamErrorEvent');
    expect(failure.message).toMatch(/stream error \(overloaded_error\): .*Overloaded/);
  });
});

describe('missingApiKeyFailure', () => {
  it('is non-retryable and tells the user to set ANTHROPIC_API_KEY on the worker', () => {
    const failure = missingApiKeyFailure();
    expect(failure.nonRetryable).toBe(true);
    expect(failure.type).toBe('MissingApiKey');
    expect(failure.message).toMatch(/ANTHROPIC_API_KEY is not set on the worker/);
  });
});

describe('refusedFeatureFailure', () => {
  const asked = { compaction: true, taskBudget: true };

  it('a 400 naming the compaction parameter or the task budget the request carried: FeatureRefused, naming it', () => {
    const compaction = refusedFeatureFailure(apiError(400, 'context_management: Extra inputs are not permitted'), asked)!;
    expect(compaction).toMatchObject({ type: 'FeatureRefused', nonRetryable: true, details: ['compaction'] });
    expect(compaction.message).toMatch(/refused server-side compaction: context_management/);
    const budget = refusedFeatureFailure(apiError(400, 'output_config.task_budget: Extra inputs are not permitted'), asked)!;
    expect(budget).toMatchObject({ type: 'FeatureRefused', details: ['task_budget'] });
  });

  it('anything else is left to the usual classification: another 400, another status, a feature not asked for', () => {
    expect(refusedFeatureFailure(apiError(400, 'prompt is too long: 41000 tokens > 40000 maximum'), asked)).toBeNull();
    expect(refusedFeatureFailure(apiError(500, 'context_management broke'), asked)).toBeNull();
    expect(refusedFeatureFailure(apiError(400, 'context_management: Extra inputs are not permitted'), { compaction: false, taskBudget: false })).toBeNull();
    expect(refusedFeatureFailure(new Error('context_management'), asked)).toBeNull();
  });
});
