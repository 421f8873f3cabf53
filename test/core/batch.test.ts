// Batch mode's pure part: request ids, poll pacing, the worker's options, the status line; and the settings and the
// prices that batch mode changes (the settings check, the batch price, the budget guard's lower bound).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agoText, batchCustomId, batchOptions, BATCH_DEFAULTS, nextPollMs, statusOfErrorType, waitingForBatchText } from '../../src/core/batch.js';
import { guardNextCallFits, recordModelCall } from '../../src/core/guards.js';
import { costUsd, priceFor } from '../../src/core/pricing.js';
import { defaultSettings } from '../../src/core/settings.js';
import { settingsProblem } from '../../src/core/settings-check.js';
import type { LoopState, Usage } from '../../src/core/types.js';

const usage: Usage = { input_tokens: 1_000, output_tokens: 500, cache_creation_input_tokens: 2_000, cache_read_input_tokens: 30_000 };
const loop = (): LoopState => ({
  steps: 0,
  toolCalls: 0,
  usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  lastCallUsage: null,
  costUsd: 0,
  toolCallHashes: {},
  errorStreak: 0,
});

describe('batch request ids', () => {
  it('are valid custom_ids (^[a-zA-Z0-9_-]{1,64}$) naming the run and the step, whatever the workflow id holds', () => {
    const id = batchCustomId({ workflowId: 'triage/nightly: 2026-12-06 ünïcode and a very long name indeed', runId: 'r1' }, 12, 2);
    expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(id).toContain('-s12-2-');
    expect(id.startsWith('triage_nightly_')).toBe(true);
  });

  it('differ between runs, steps and submissions, and are the same when asked again (a retried submit)', () => {
    const run = { workflowId: 'job', runId: 'r1' };
    const ids = [batchCustomId(run, 1, 1), batchCustomId(run, 2, 1), batchCustomId(run, 1, 2), batchCustomId({ ...run, runId: 'r2' }, 1, 1)];
    expect(new Set(ids).size).toBe(4);
    expect(batchCustomId(run, 1, 1)).toBe(ids[0]);
  });
});

describe('polling', () => {
  it('waits a tenth of the batch age, within pollMs and maxPollMs', () => {
    const o = batchOptions();
    expect(nextPollMs(0, o)).toBe(BATCH_DEFAULTS.pollMs);
    expect(nextPollMs(20 * 60_000, o)).toBe(120_000);
    expect(nextPollMs(10 * 3_600_000, o)).toBe(BATCH_DEFAULTS.maxPollMs);
  });

  it('polls an hour-long batch as many times as docs/background-agents.md says (within a tenth)', () => {
    const o = batchOptions();
    let age = o.pollMs;
    let polls = 1;
    for (; age < 3_600_000; polls++) age += nextPollMs(age, o);
    const said = /an hour-long batch is polled about (\d+) times/.exec(readFileSync('docs/background-agents.md', 'utf8'))?.[1];
    expect(said).toBeDefined();
    expect(Math.abs(polls - Number(said))).toBeLessThanOrEqual(Number(said) / 10);
  });

  it("refuses worker options that cannot work, naming the option", () => {
    expect(() => batchOptions({ windowMs: 0 })).toThrow(/modelBatches.windowMs must be a number of milliseconds >= 1/);
    expect(() => batchOptions({ windowMs: 120_000 })).toThrow(/modelBatches.windowMs must be at most 60000/);
    expect(() => batchOptions({ pollMs: 5_000, maxPollMs: 1_000 })).toThrow(/maxPollMs \(1000\) must be at least pollMs \(5000\)/);
  });

  it('maps an errored request to the status the same direct error has', () => {
    expect(statusOfErrorType('invalid_request_error')).toBe(400);
    expect(statusOfErrorType('overloaded_error')).toBe(529);
    expect(statusOfErrorType('something_new')).toBe(500);
  });

  it('says which batch a run waits for and since when', () => {
    expect(waitingForBatchText({ batchId: 'msgbatch_01', submittedAt: 0 }, 4 * 60_000 + 10_000)).toBe('waiting for batch msgbatch_01 (submitted 4m ago)');
    expect(agoText(65 * 60_000)).toBe('1h 5m');
    expect(agoText(12_000)).toBe('12s');
  });
});

describe('batch prices', () => {
  it('are half of every token kind (cache writes and hits included), the web search fee unchanged', () => {
    const price = priceFor('claude-sonnet-4-5')!;
    expect(costUsd(usage, price, true)).toBeCloseTo(costUsd(usage, price) / 2, 12);
    const searched = { ...usage, server_tool_use: { web_search_requests: 3, web_fetch_requests: 0 } };
    expect(costUsd(searched, price, true)).toBeCloseTo(costUsd(usage, price) / 2 + 0.03, 12);
  });

  it('are what the budget guard counts for a batch reply, and its lower bound of the next call in batch mode', () => {
    const settings = defaultSettings({ model: 'claude-sonnet-4-5', modelCalls: 'batch' });
    const direct = loop();
    const batched = loop();
    recordModelCall(direct, usage, settings);
    recordModelCall(batched, usage, settings, undefined, true);
    expect(batched.costUsd).toBeCloseTo(direct.costUsd! / 2, 12);
    // A budget the next direct call cannot fit in, but the next batch request can.
    const spent = batched.costUsd!;
    const budget = { ...settings, budgetUsd: spent + 0.008 };
    expect(guardNextCallFits(batched, budget)).toBeNull();
    expect(guardNextCallFits(batched, { ...budget, modelCalls: undefined })?.guard).toBe('budget');
  });
});

describe('batch settings', () => {
  it('takes modelCalls direct|batch and batchFallback retry|direct, and refuses batch with localModelCalls', () => {
    expect(settingsProblem(defaultSettings({ modelCalls: 'batch', batchFallback: 'direct' }))).toBeNull();
    expect(settingsProblem(defaultSettings({ modelCalls: 'later' as never }))).toEqual({ field: 'modelCalls', path: 'modelCalls', problem: 'must be one of direct, batch (got "later")' });
    expect(settingsProblem(defaultSettings({ modelCalls: 'batch', batchFallback: 'never' as never }))?.field).toBe('batchFallback');
    const both = settingsProblem(defaultSettings({ modelCalls: 'batch', localModelCalls: true }));
    expect(both?.field).toBe('modelCalls');
    expect(both?.problem).toMatch(/cannot be combined with localModelCalls/);
  });
});
