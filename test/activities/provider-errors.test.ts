// The provider error policy end to end: the scripted model answers with the real API's error shapes, the real
// SDK raises its errors, the model activity classifies them, and Temporal retries (or does not).
import { describe, expect, it } from 'vitest';
import { MODEL_CALL_OPTIONS } from '../../src/core/policies.js';
import { apiError, failTimes, reply, text, type Script } from '../../src/scripted/index.js';
import { eventMs, scheduledActivities, useSharedAgent, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();
// One worker for all the file's tests.
const agents = useSharedAgent(env);

/** Answers every request with `turn` (failTimes is counted by the server), noting when each one arrived. */
function timed(turn: ReturnType<typeof failTimes> | ReturnType<typeof apiError>) {
  const arrivals: number[] = [];
  const script: Script = () => {
    arrivals.push(Date.now());
    return turn;
  };
  return { arrivals, script };
}

const ms = (duration: string) => Number(duration.split(' ')[0]) * 1000; // '1 second' → 1000

describe('retryable provider errors', () => {
  it('429 is retried no sooner than retry-after asks (2 s, where the policy would wait 1 s), and the run completes', async () => {
    expect(ms(MODEL_CALL_OPTIONS.retry.initialInterval)).toBeLessThan(2000);
    const { arrivals, script } = timed(
      failTimes(1, apiError(429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit', { 'retry-after': '2' }), reply([text('after the wait')])),
    );
    await agents.with({ script }, async ({ run, model, env }) => {
      const result = await run('rate limited');
      expect(result).toMatchObject({ status: 'completed', text: 'after the wait', steps: 1 });
      expect(model.requests.map((r) => r.status)).toEqual([429, 200]);
      // The server scheduled the second attempt after the delay the first one's failure asked for: retry-after's 2 s,
      // in place of the policy's backoff (the attempt's lastFailure, as the history recorded it).
      const history = await env.client.workflow.getHandle(result.workflowId).fetchHistory();
      const attempts = (history.events ?? []).flatMap((e) => e.activityTaskStartedEventAttributes ?? []);
      expect(attempts.map((a) => a.attempt)).toEqual([2]);
      expect(eventMs(attempts[0].lastFailure?.applicationFailureInfo?.nextRetryDelay)).toBe(2000);
    });
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(2000);
  });

  it('529 overloaded twice, then success: retried with the policy backoff and the run completes', async () => {
    const { arrivals, script } = timed(failTimes(2, apiError(529, 'overloaded_error', 'Overloaded'), reply([text('finally')])));
    await agents.with({ script }, async ({ run, model, env }) => {
      const result = await run('overloaded');
      expect(result).toMatchObject({ status: 'completed', text: 'finally', steps: 1 });
      expect(model.requests.map((r) => r.status)).toEqual([529, 529, 200]);
      // Retried by Temporal (one activity, three attempts), not by the SDK.
      expect(await scheduledActivities(env.client, result.workflowId)).toEqual(['callModel']);
    });
    const first = ms(MODEL_CALL_OPTIONS.retry.initialInterval);
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(first);
    expect(arrivals[2] - arrivals[1]).toBeGreaterThanOrEqual(first * MODEL_CALL_OPTIONS.retry.backoffCoefficient);
  });
});

describe('non-retryable provider errors fail the run after exactly one request', () => {
  it('400: the run fails with a message naming the cause and the request id', async () => {
    const { script } = timed(apiError(400, 'invalid_request_error', 'messages.0.content: the block type is not supported'));
    await agents.with({ script }, async ({ run, model, env }) => {
      const result = await run('bad request');
      expect(model.requests).toHaveLength(1);
      const requestId = model.requests[0].requestId;
      expect(result).toMatchObject({ status: 'failed', guard: null, steps: 0, partial: true });
      expect(result.error).toContain('Anthropic API 400');
      expect(result.error).toContain('messages.0.content: the block type is not supported');
      expect(result.error).toContain(`request id ${requestId}`);
      // The workflow itself failed (so the UI shows it), after one model call attempt (the only activity: the tools
      // were described in a local activity).
      const handle = env.client.workflow.getHandle(result.workflowId);
      expect((await handle.describe()).status.name).toBe('FAILED');
      const history = await handle.fetchHistory();
      const started = history.events?.filter((e) => e.activityTaskStartedEventAttributes) ?? [];
      expect(started.map((e) => e.activityTaskStartedEventAttributes?.attempt)).toEqual([1]);
      expect(await scheduledActivities(env.client, result.workflowId)).toEqual(['callModel']);
    });
  });

  it('401: the run fails with a message about the API key', async () => {
    const { script } = timed(apiError(401, 'authentication_error', 'invalid x-api-key'));
    await agents.with({ script }, async ({ run, model }) => {
      const result = await run('bad key');
      expect(model.requests).toHaveLength(1);
      expect(result.status).toBe('failed');
      expect(result.error).toMatch(/API key was not accepted: check ANTHROPIC_API_KEY on the worker/);
      expect(result.error).toContain('invalid x-api-key');
    });
  });

  it.each([
    [403, 'permission_error', /permission/],
    [404, 'not_found_error', /model or endpoint was not found/],
    [413, 'request_too_large', /too large/],
    [422, 'invalid_request_error', /could not be processed/],
  ])('%i (%s) fails the run without a retry', async (status, type, fix) => {
    const { script } = timed(apiError(status, type, `scripted ${status}`));
    await agents.with({ script }, async ({ run, model }) => {
      const result = await run(`status ${status}`);
      expect(model.requests).toHaveLength(1);
      expect(result.status).toBe('failed');
      expect(result.error).toMatch(fix);
      expect(result.error).toContain(`request id ${model.requests[0].requestId}`);
    });
  });
});
