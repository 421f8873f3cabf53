// The harness guards as pure functions: each one at its exact boundary, without a server.
import { describe, expect, it } from 'vitest';
import {
  guardBeforeModelCall,
  guardBudget,
  recordErrorStreak,
  recordRepetition,
  modelPrice,
  recordModelCall,
} from '../../src/core/guards.js';
import type { LoopState } from '../../src/core/durable-state.js';
import { costUsd, PRICES } from '../../src/core/pricing.js';
import { defaultSettings } from '../../src/core/settings.js';
import type { AgentSettings, Usage } from '../../src/core/types.js';

const usage = (u: Partial<Usage> = {}): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  ...u,
});

// The default settings, on the model whose PRICES the cost tests below compute with.
const settings = (s: Partial<AgentSettings> = {}): AgentSettings => defaultSettings({ model: 'claude-sonnet-5-5', ...s });

const loop = (s: Partial<LoopState> = {}): LoopState => ({
  steps: 0,
  toolCalls: 0,
  usage: usage(),
  lastCallUsage: null,
  costUsd: null,
  toolCallHashes: {},
  errorStreak: 0,
  ...s,
});

const err = { isError: true };
const ok = { isError: false };

describe('recordModelCall', () => {
  it('counts the step and sums all four usage fields over calls', () => {
    const state = loop();
    const s = settings();
    recordModelCall(state, usage({ input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 100, cache_read_input_tokens: 7 }), s);
    recordModelCall(state, usage({ input_tokens: 1, output_tokens: 2, cache_creation_input_tokens: 3, cache_read_input_tokens: 4 }), s);
    expect(state.steps).toBe(2);
    expect(state.usage).toEqual(usage({ input_tokens: 11, output_tokens: 7, cache_creation_input_tokens: 103, cache_read_input_tokens: 11 }));
    expect(state.lastCallUsage).toEqual(usage({ input_tokens: 1, output_tokens: 2, cache_creation_input_tokens: 3, cache_read_input_tokens: 4 }));
  });

  it('adds each call priced on its own, cache writes and reads included', () => {
    const state = loop();
    const a = usage({ input_tokens: 1000, output_tokens: 100, cache_creation_input_tokens: 2000, cache_read_input_tokens: 4000 });
    const b = usage({ input_tokens: 500, output_tokens: 200 });
    recordModelCall(state, a, settings());
    recordModelCall(state, b, settings());
    // Sonnet 5.5: $2 input, $10 output, $2.50 cache write, $0.10 cache read per MTok.
    expect(state.costUsd).toBeCloseTo((1000 * 2 + 100 * 10 + 2000 * 2.5 + 4000 * 0.1 + 500 * 2 + 200 * 10) / 1e6, 12);
    expect(state.costUsd).toBeCloseTo(costUsd(a, PRICES['claude-sonnet-5-5']) + costUsd(b, PRICES['claude-sonnet-5-5']), 12);
  });

  it('leaves the cost null for a model with no known price, and uses the settings prices over the table', () => {
    const unknown = loop();
    recordModelCall(unknown, usage({ input_tokens: 1000 }), settings({ model: 'some-other-model' }));
    expect(unknown.costUsd).toBeNull();

    const overridden = loop();
    const s = settings({ prices: { 'claude-sonnet-5-5': { input: 1000, output: 0, cacheWrite: 0, cacheRead: 0 } } });
    expect(modelPrice(s)?.input).toBe(1000);
    recordModelCall(overridden, usage({ input_tokens: 1000 }), s);
    expect(overridden.costUsd).toBeCloseTo(1, 12);
  });
});

describe('guardBeforeModelCall: step cap', () => {
  it('lets call maxSteps be made and stops before call maxSteps + 1', () => {
    expect(guardBeforeModelCall(loop({ steps: 2 }), settings({ maxSteps: 3 }))).toBeNull();
    const tripped = guardBeforeModelCall(loop({ steps: 3 }), settings({ maxSteps: 3 }));
    expect(tripped?.guard).toBe('max_steps');
    expect(tripped?.reason).toMatch(/3 model calls/);
  });
});

describe('guardBudget: a call whose usage reached the budget ends the run', () => {
  it('token budget: one token under is fine, exactly the budget trips; cache tokens count', () => {
    const s = settings({ budgetTokens: 1000 });
    const under = usage({ input_tokens: 400, output_tokens: 99, cache_creation_input_tokens: 300, cache_read_input_tokens: 200 });
    expect(guardBudget(loop({ usage: under }), s)).toBeNull();
    const at = { ...under, output_tokens: 100 };
    const tripped = guardBudget(loop({ usage: at }), s);
    expect(tripped?.guard).toBe('budget');
    expect(tripped?.reason).toMatch(/1000 of 1000 tokens/);
  });

  it('cost budget: just under is fine, reaching it trips', () => {
    const s = settings({ budgetUsd: 0.5 });
    expect(guardBudget(loop({ costUsd: 0.4999 }), s)).toBeNull();
    expect(guardBudget(loop({ costUsd: 0.5 }), s)?.guard).toBe('budget');
    expect(guardBudget(loop({ costUsd: 0.75 }), s)?.reason).toMatch(/cost budget spent/);
  });

  it('never trips without a budget, or on cost when the cost is unknown', () => {
    expect(guardBudget(loop({ usage: usage({ input_tokens: 10 ** 9 }), costUsd: 10 ** 6 }), settings())).toBeNull();
    expect(guardBudget(loop({ costUsd: null }), settings({ budgetUsd: 0 }))).toBeNull();
  });
});

describe('guardBeforeModelCall: the next call must fit in the budget', () => {
  // After one call of 100 input + 50 output tokens, the next prompt holds at least those 150 tokens, and the
  // reply at least 1: 151 tokens.
  const afterOneCall = (s: AgentSettings) => {
    const state = loop();
    recordModelCall(state, usage({ input_tokens: 100, output_tokens: 50 }), s);
    return state;
  };

  it('token budget: makes the call when spent + estimate equals the budget, not when it is one over', () => {
    const fits = settings({ budgetTokens: 150 + 151 });
    expect(guardBeforeModelCall(afterOneCall(fits), fits)).toBeNull();
    const tight = settings({ budgetTokens: 150 + 150 });
    const tripped = guardBeforeModelCall(afterOneCall(tight), tight);
    expect(tripped?.guard).toBe('budget');
    expect(tripped?.reason).toMatch(/150 of 300 tokens used, and the next call needs at least 151/);
  });

  it('token budget: cache writes and reads of the last call are part of the next prompt', () => {
    const s = settings({ budgetTokens: 1000 });
    const state = loop();
    recordModelCall(state, usage({ input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 200, cache_read_input_tokens: 200 }), s);
    // spent 420; next >= 10 + 200 + 200 + 10 + 1 = 421 → 841 fits in 1000 …
    expect(guardBeforeModelCall(state, s)).toBeNull();
    // … but not in 840.
    expect(guardBeforeModelCall(state, settings({ budgetTokens: 840 }))?.guard).toBe('budget');
    expect(guardBeforeModelCall(state, settings({ budgetTokens: 841 }))).toBeNull();
  });

  it('token budget: a zero budget refuses the first call, a one-token budget allows it', () => {
    expect(guardBeforeModelCall(loop(), settings({ budgetTokens: 1 }))).toBeNull();
    expect(guardBeforeModelCall(loop(), settings({ budgetTokens: 0 }))?.guard).toBe('budget');
  });

  it('cost budget: a call whose cheapest possible price does not fit is not made', () => {
    // Call 1 (Sonnet 5.5): 1000 in * $2 + 500 out * $10 = $0.007. Next call at least: 1000 repeated tokens as
    // cache hits ($0.10) + 500 added at $2 + 1 output token at $10 = $0.00111. Together $0.00811.
    const fits = settings({ budgetUsd: 0.0082 });
    const state = loop();
    recordModelCall(state, usage({ input_tokens: 1000, output_tokens: 500 }), fits);
    expect(state.costUsd).toBeCloseTo(0.007, 12);
    expect(guardBeforeModelCall(state, fits)).toBeNull();
    const tripped = guardBeforeModelCall(state, settings({ budgetUsd: 0.0081 }));
    expect(tripped?.guard).toBe('budget');
    expect(tripped?.reason).toMatch(/cost budget/);
  });

  it('cost budget: no estimate is made for a model without a price', () => {
    const s = settings({ model: 'unpriced-model', budgetUsd: 0 });
    const state = loop();
    recordModelCall(state, usage({ input_tokens: 10 ** 6, output_tokens: 10 ** 6 }), s);
    expect(guardBeforeModelCall(state, s)).toBeNull();
  });

  it('reports a budget already spent before the estimate', () => {
    const s = settings({ budgetTokens: 100 });
    const tripped = guardBeforeModelCall(loop({ usage: usage({ input_tokens: 100 }) }), s);
    expect(tripped?.reason).toMatch(/token budget spent/);
  });
});

describe('recordRepetition', () => {
  const search = (query: string) => ({ name: 'web_search', input: { query } });

  it('keys a run\'s counts by a hash of the call: what the run carries stays small however large the input', () => {
    const state = loop();
    const write = (body: string) => ({ name: 'write_file', input: { path: 'a.txt', body } });
    const big = 'x'.repeat(200_000);
    expect(recordRepetition(state, [write(big)])).toBeNull();
    expect(recordRepetition(state, [write(`${big}y`)])).toBeNull();
    expect(Object.keys(state.toolCallHashes)).toHaveLength(2);
    expect(JSON.stringify(state.toolCallHashes).length).toBeLessThan(200);
    // The same call in another key order and spacing is still the same call.
    expect(recordRepetition(state, [{ name: 'write_file', input: { body: `  ${big}  `, path: 'A.txt' } }])).toBeNull();
    expect(recordRepetition(state, [write(big)])).toMatchObject({ guard: 'repetition' });
  });

  it('allows the same call twice across turns and trips on the third request', () => {
    const state = loop();
    expect(recordRepetition(state, [search('population of France')])).toBeNull();
    expect(recordRepetition(state, [search('population of France')])).toBeNull();
    const tripped = recordRepetition(state, [search('population of France')]);
    expect(tripped).toMatchObject({ guard: 'repetition' });
    expect(tripped?.reason).toMatch(/web_search was requested 3 times/);
    expect(tripped?.reason).toContain('population of France');
  });

  it('treats strings that differ only in case and surrounding white space, and key order, as the same arguments', () => {
    const state = loop();
    expect(recordRepetition(state, [{ name: 'lookup', input: { q: 'Population of France', n: 1 } }])).toBeNull();
    expect(recordRepetition(state, [{ name: 'lookup', input: { n: 1, q: '  population of FRANCE\n' } }])).toBeNull();
    expect(recordRepetition(state, [{ name: 'lookup', input: { q: 'POPULATION OF FRANCE', n: 1 } }])?.guard).toBe('repetition');
  });

  it('counts different arguments, inner white space, value types and tool names apart', () => {
    const other = loop();
    for (const turn of [
      [search('population of france')],
      [search('population  of france')], // inner white space is kept
      [{ name: 'web_fetch', input: { query: 'population of france' } }],
      [{ name: 'lookup', input: { n: 1 } }],
      [{ name: 'lookup', input: { n: '1' } }],
      [search('population of france')],
      [{ name: 'lookup', input: { n: 1 } }],
    ]) {
      expect(recordRepetition(other, turn)).toBeNull();
    }
  });

  it('counts repeats inside one turn: the third request of the same call in one turn trips', () => {
    const state = loop();
    expect(recordRepetition(state, [search('a'), search('b'), search('a')])).toBeNull();
    const again = loop();
    const tripped = recordRepetition(again, [search('a'), search('b'), search('a'), search('A ')]);
    expect(tripped).toMatchObject({ guard: 'repetition' });
    expect(tripped?.reason).toMatch(/web_search was requested 3 times/);
  });
});

describe('recordErrorStreak', () => {
  it('trips on the third error in a row, across turns', () => {
    const state = loop();
    expect(recordErrorStreak(state, [err])).toBeNull();
    expect(recordErrorStreak(state, [err])).toBeNull();
    expect(state.errorStreak).toBe(2);
    const tripped = recordErrorStreak(state, [err]);
    expect(tripped?.guard).toBe('error_streak');
    expect(tripped?.reason).toMatch(/3 tool calls in a row/);
  });

  it('trips on three errors in one turn', () => {
    expect(recordErrorStreak(loop(), [err, err, err])?.guard).toBe('error_streak');
  });

  it('is reset by a success: two errors, a success, two errors do not trip; one more does', () => {
    const state = loop();
    expect(recordErrorStreak(state, [err, err])).toBeNull();
    expect(recordErrorStreak(state, [ok])).toBeNull();
    expect(state.errorStreak).toBe(0);
    expect(recordErrorStreak(state, [err, err])).toBeNull();
    expect(recordErrorStreak(state, [err])?.guard).toBe('error_streak');
  });

  it('counts the outcomes of a turn in order: a success in the middle breaks the streak', () => {
    const state = loop({ errorStreak: 2 });
    expect(recordErrorStreak(state, [ok, err, err])).toBeNull();
    expect(state.errorStreak).toBe(2);
    // Two errors carried in, then one more: three in a row, even though the turn ends on a success.
    expect(recordErrorStreak(loop({ errorStreak: 2 }), [err, ok])?.guard).toBe('error_streak');
  });

  it('a turn with no tool calls leaves the streak as it was', () => {
    const state = loop({ errorStreak: 2 });
    expect(recordErrorStreak(state, [])).toBeNull();
    expect(state.errorStreak).toBe(2);
  });
});

describe('error streak inside one turn', () => {
  it('trips on three errors in a row even when a later call of the same turn succeeds', () => {
    const state = loop();
    const tripped = recordErrorStreak(state, [{ isError: true }, { isError: true }, { isError: true }, { isError: false }]);
    expect(tripped?.guard).toBe('error_streak');
    expect(state.errorStreak).toBe(0);
  });
});
