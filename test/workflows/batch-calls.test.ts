// Batch mode (`modelCalls: 'batch'`) on a real dev server and worker, against the scripted model's Message Batches
// API through the real SDK: what the model was sent (no direct request, one batch request per step), what the run
// recorded (its batch ids, its cost at the batch price), and the fallbacks of an errored or expired request.
import { describe, expect, it } from 'vitest';
import { getStatus, getTurnUsage } from '../../src/client/index.js';
import { formatStatus } from '../../src/cli/commands/status.js';
import { AgentCostUsd } from '../../src/core/search-attributes.js';
import { apiError, failTimes, reply, text, toolUse, type ScriptTurn } from '../../src/scripted/index.js';
import { eventually, localActivityTypes, scheduledActivities, useSharedAgent, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();
/** Short, so a test waits milliseconds where a worker waits seconds. */
const FAST = { windowMs: 200, pollMs: 100, maxPollMs: 200 };
// One worker, gathering and polling batches with FAST, for all the file's tests.
const agents = useSharedAgent(env, { modelBatches: FAST });

/** Two calculator turns, then the answer: three model calls. */
const THREE_STEPS: ScriptTurn[] = [
  reply([text('First, 6 * 7.'), toolUse('calculator', { expression: '6 * 7' })]),
  reply([text('Then 42 + 58.'), toolUse('calculator', { expression: '42 + 58' })]),
  reply([text('The answer is 100.')]),
];

describe('a run in batch mode', () => {
  it('sends every model call as a batch request (none direct), completes with the answer, and costs half of the same run made directly', async () => {
    const direct = await agents.with({ script: THREE_STEPS }, (h) => h.run('compute', { tools: ['calculator'] }));
    await agents.with({ script: THREE_STEPS }, async (h) => {
      const result = await h.run('compute', { tools: ['calculator'], modelCalls: 'batch' });
      expect(result.status).toBe('completed');
      expect(result.text).toBe('The answer is 100.');
      expect(h.model.requests).toHaveLength(0);
      const batchRequests = h.model.batches.flatMap((b) => b.requests);
      expect(batchRequests.map((r) => [r.turn, r.result])).toEqual([
        [0, 'succeeded'],
        [1, 'succeeded'],
        [2, 'succeeded'],
      ]);
      // Same tokens, half the price: the scripted model's usage depends on the request only, and both runs sent the same.
      expect(result.usage).toEqual(direct.usage);
      expect(result.costUsd! / direct.costUsd!).toBeCloseTo(0.5, 2);
      expect(Math.abs(result.costUsd! / direct.costUsd! - 0.5)).toBeLessThanOrEqual(0.005);
      // In history: a submit activity per step, the polls as local activities, no callModel.
      const activities = await scheduledActivities(env.client, result.workflowId);
      expect(activities.filter((a) => a === 'callModel')).toHaveLength(0);
      expect(activities.filter((a) => a === 'submitModelBatchRequest')).toHaveLength(3);
      const history = await env.client.workflow.getHandle(result.workflowId).fetchHistory();
      expect(localActivityTypes(history.events ?? [])).toContain('pollModelBatchRequest');
      // The search attribute a fleet is filtered by holds the batch price too.
      const attrs = (await env.client.workflow.getHandle(result.workflowId).describe()).typedSearchAttributes;
      expect(attrs.get(AgentCostUsd)).toBeCloseTo(result.costUsd!, 6);
      // The console's per-turn figures read the replies from the polls' markers, at the batch price too.
      const turns = await getTurnUsage(env.client, result.workflowId);
      expect(turns.map((t) => t.step)).toEqual([1, 2, 3]);
      expect(turns.reduce((sum, t) => sum + t.costUsd!, 0)).toBeCloseTo(result.costUsd!, 5);
    });
  });

  it('shows the batch it waits for in status, and a cancel releases the request and cancels the batch no other run needs', async () => {
    const script: ScriptTurn[] = [{ ...reply([text('never seen')]), hold: true }];
    await agents.with({ script }, async (h) => {
      const id = await h.start('wait', { tools: [], modelCalls: 'batch' });
      const report = await eventually(() => getStatus(env.client, id), (r) => r.view?.waitingForBatch !== undefined);
      expect(report.view!.waitingForBatch!.batchId).toBe(h.model.batches[0].id);
      expect(formatStatus(report, Date.now())).toMatch(new RegExp(`model call: +waiting for batch ${h.model.batches[0].id} \\(submitted \\d+s ago\\)`));
      await env.client.workflow.getHandle(id).cancel();
      const result = await env.client.workflow.getHandle(id).result();
      expect(result.status).toBe('cancelled');
      expect(h.model.batches[0].canceled).toBe(true);
      expect(h.model.batches[0].requests[0].result).toBe('canceled');
      h.model.release();
    });
  });

  it('puts an errored request (overloaded) into a later batch, and makes an expired one directly with batchFallback direct', async () => {
    const overloaded = failTimes(1, apiError(529, 'overloaded_error', 'Overloaded'), reply([text('Done after a retry.')]));
    await agents.with({ script: [overloaded] }, async (h) => {
      const result = await h.run('retry', { tools: [], modelCalls: 'batch' });
      expect(result.text).toBe('Done after a retry.');
      expect(h.model.batches.map((b) => b.requests[0].result)).toEqual(['errored', 'succeeded']);
      expect(h.model.requests).toHaveLength(0);
      expect(result.costUsd).not.toBeNull();
    });
    const expires = failTimes(1, { ...apiError(500, 'api_error', 'not processed in time'), expiredInBatch: true }, reply([text('Done directly.')]));
    await agents.with({ script: [expires] }, async (h) => {
      const result = await h.run('fallback', { tools: [], modelCalls: 'batch', batchFallback: 'direct' });
      expect(result.text).toBe('Done directly.');
      expect(h.model.batches.map((b) => b.requests[0].result)).toEqual(['expired']);
      expect(h.model.requests.map((r) => r.status)).toEqual([200]);
    });
  });
});
