import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/core/policies.js';
import { PRICES, costUsd, estimateNextCall, parsePriceOverrides, priceFor, type ModelPrice } from '../../src/core/pricing.js';
import type { Usage } from '../../src/core/types.js';

const M = 1_000_000;
const usage = (u: Partial<Usage>): Usage => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  ...u,
});
// Prices made up for the arithmetic, so these tests do not copy the table.
const flat: ModelPrice = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 };
const tiered: ModelPrice = {
  input: 1,
  output: 5,
  cacheWrite: 1.25,
  cacheRead: 0.1,
  longPrompt: { overTokens: 100_000, input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 },
};

describe('the price table', () => {
  it('prices the default model, so --budget-usd works without a price file', () => {
    expect(priceFor(DEFAULTS.model)).toBeDefined();
  });

  it('covers the 4, 4.1, 4.5 and later generations', () => {
    for (const id of [
      'claude-opus-4', 'claude-opus-4-1', 'claude-opus-4-5', 'claude-opus-4-6', 'claude-opus-4-7', 'claude-opus-4-8',
      'claude-opus-5', 'claude-opus-5-5', 'claude-sonnet-4', 'claude-sonnet-4-5', 'claude-sonnet-4-6',
      'claude-sonnet-5', 'claude-sonnet-5-5', 'claude-haiku-4-5', 'claude-haiku-5-5', 'claude-fable-5', 'claude-fable-5-1',
    ]) {
      expect(priceFor(id), id).toBeDefined();
    }
  });

  it('has sane rates everywhere: cache reads below input, 5m cache writes at 1.25x input, output above input', () => {
    for (const [id, p] of Object.entries(PRICES)) {
      for (const r of p.longPrompt ? [p, p.longPrompt] : [p]) {
        expect(r.cacheRead, id).toBeLessThan(r.input);
        expect(r.cacheWrite, id).toBeCloseTo(r.input * 1.25, 10);
        expect(r.output, id).toBeGreaterThan(r.input);
      }
    }
  });
});

describe('priceFor', () => {
  it('finds an exact id', () => {
    expect(priceFor('claude-sonnet-5-5')).toBe(PRICES['claude-sonnet-5-5']);
  });

  it('resolves dated snapshots to their model', () => {
    expect(priceFor('claude-sonnet-4-5-20250929')).toBe(PRICES['claude-sonnet-4-5']);
    expect(priceFor('claude-haiku-4-5-20251001')).toBe(PRICES['claude-haiku-4-5']);
    expect(priceFor('claude-opus-4-20250514')).toBe(PRICES['claude-opus-4']);
    expect(priceFor('claude-opus-4-1-20250805')).toBe(PRICES['claude-opus-4-1']);
  });

  it('resolves -latest and the -0 aliases', () => {
    expect(priceFor('claude-3-5-haiku-latest')).toBe(PRICES['claude-3-5-haiku']);
    expect(priceFor('claude-opus-4-0')).toBe(PRICES['claude-opus-4']);
    expect(priceFor('claude-sonnet-4-0')).toBe(PRICES['claude-sonnet-4']);
  });

  it('ignores case and surrounding white space', () => {
    expect(priceFor('  Claude-Sonnet-5-5 ')).toBe(PRICES['claude-sonnet-5-5']);
  });

  it('returns undefined for an unknown model, and does not guess from a prefix', () => {
    expect(priceFor('gpt-6-sol')).toBeUndefined();
    expect(priceFor('claude-sonnet-9')).toBeUndefined();
    expect(priceFor('claude-sonnet-5-5-extra')).toBeUndefined();
    expect(priceFor('claude-sonnet-5-5-2025')).toBeUndefined();
    expect(priceFor('toString')).toBeUndefined();
  });

  it('looks in the table it is given', () => {
    const table = { 'my-model': { input: 1, output: 2, cacheWrite: 1.25, cacheRead: 0.1 } };
    expect(priceFor('my-model-20260101', table)).toBe(table['my-model']);
    expect(priceFor('claude-sonnet-5-5', table)).toBeUndefined();
  });
});

describe('costUsd', () => {
  it('prices 1M tokens of each kind at exactly its rate', () => {
    expect(costUsd(usage({ input_tokens: M }), flat)).toBe(3);
    expect(costUsd(usage({ output_tokens: M }), flat)).toBe(15);
    expect(costUsd(usage({ cache_creation_input_tokens: M }), flat)).toBe(3.75);
    expect(costUsd(usage({ cache_read_input_tokens: M }), flat)).toBe(0.3);
    expect(costUsd(usage({}), flat)).toBe(0);
  });

  it('adds the four kinds', () => {
    const u = usage({ input_tokens: 1000, output_tokens: 500, cache_creation_input_tokens: 2000, cache_read_input_tokens: 10_000 });
    expect(costUsd(u, flat)).toBeCloseTo((1000 * 3 + 500 * 15 + 2000 * 3.75 + 10_000 * 0.3) / M, 12);
  });

  it('makes a cached prompt cheaper than the same prompt sent uncached', () => {
    for (const [id, p] of Object.entries(PRICES)) {
      expect(costUsd(usage({ cache_read_input_tokens: 50_000 }), p), id).toBeLessThan(costUsd(usage({ input_tokens: 50_000 }), p));
    }
  });

  it('bills a tiered model by its prompt length: cache tokens count, the threshold is "over overTokens"', () => {
    expect(costUsd(usage({ input_tokens: 100_000, output_tokens: M }), tiered)).toBeCloseTo(0.1 + 5, 12);
    // 60k input + 40,001 cache reads is a 100,001-token prompt: every token at the long-prompt rates.
    const long = usage({ input_tokens: 60_000, cache_read_input_tokens: 40_001, output_tokens: M });
    expect(costUsd(long, tiered)).toBeCloseTo((60_000 * 2 + 40_001 * 0.2) / M + 10, 12);
  });

  it('bills a long prompt on claude-haiku-5-5 at a higher rate per token than a short one', () => {
    const haiku = PRICES['claude-haiku-5-5'];
    const perToken = (tokens: number) => costUsd(usage({ input_tokens: tokens }), haiku) / tokens;
    expect(perToken(150_000)).toBeGreaterThan(perToken(50_000));
  });
});

describe('estimateNextCall', () => {
  it('before the first call knows only of one output token', () => {
    expect(estimateNextCall(null, 4096, flat)).toEqual({ tokens: 1, usd: 15 / M });
  });

  it('counts the whole previous prompt plus the previous reply, and one output token, not max_tokens', () => {
    const prev = usage({ input_tokens: 300, cache_creation_input_tokens: 1000, cache_read_input_tokens: 20_000, output_tokens: 700 });
    const next = estimateNextCall(prev, 4096, flat);
    expect(next.tokens).toBe(300 + 1000 + 20_000 + 700 + 1);
    // repeated prompt at the cache-read rate, the reply (never cached) at the input rate, one output token
    expect(next.usd).toBeCloseTo((21_300 * 0.3 + 700 * 3 + 1 * 15) / M, 15);
  });

  it('is a lower bound: never above the cost of the cheapest call the next one can be', () => {
    const prev = usage({ input_tokens: 5000, output_tokens: 800, cache_read_input_tokens: 30_000 });
    for (const p of Object.values(PRICES)) {
      const next = estimateNextCall(prev, 4096, p);
      // the cheapest possible next call: everything seen before read from cache, the reply written, 1 token out
      const cheapest = usage({ cache_read_input_tokens: 35_000, cache_creation_input_tokens: 800, output_tokens: 1 });
      expect(next.usd).toBeLessThanOrEqual(costUsd(cheapest, p) + 1e-15);
      const uncached = usage({ input_tokens: 35_800 + 2000, output_tokens: 1 });
      expect(next.usd).toBeLessThan(costUsd(uncached, p));
    }
  });

  it('uses the long-prompt rates once the bound itself is over the threshold', () => {
    const next = estimateNextCall(usage({ cache_read_input_tokens: 100_000, output_tokens: 1 }), 4096, tiered);
    expect(next.usd).toBeCloseTo((100_000 * 0.2 + 1 * 2 + 1 * 10) / M, 15);
  });
});

describe('parsePriceOverrides', () => {
  const good = { 'my-model': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 } };

  it('accepts a valid file and normalises the model ids', () => {
    expect(parsePriceOverrides({ ' My-Model ': good['my-model'] }, 'prices.json')).toEqual(good);
  });

  it('accepts a long-prompt tier', () => {
    const tiered = { ...good['my-model'], longPrompt: { overTokens: 200_000, input: 6, output: 22.5, cacheWrite: 7.5, cacheRead: 0.6 } };
    const table = parsePriceOverrides({ m: tiered }, 'prices.json');
    expect(table.m).toEqual(tiered);
  });

  it.each([
    [[], /prices\.json: expected an object/],
    [{ m: 3 }, /prices\.json: model "m": expected an object of prices, got 3/],
    [{ m: { ...good['my-model'], cacheRead: '0.3' } }, /prices\.json: model "m": field "cacheRead" must be a non-negative number.*got "0\.3"/],
    [{ m: { ...good['my-model'], input: -1 } }, /model "m": field "input" must be a non-negative number/],
    [{ m: { input: 3, output: 15, cacheWrite: 3.75 } }, /model "m": field "cacheRead" .* got nothing/],
    [{ m: { ...good['my-model'], cache_read: 0.3 } }, /model "m": unknown field "cache_read"/],
    [{ m: { ...good['my-model'], longPrompt: { overTokens: 0 } } }, /model "m": field "longPrompt.overTokens" must be a positive integer/],
    [{ m: { ...good['my-model'], longPrompt: { overTokens: 5, input: 1, output: 1, cacheWrite: 1 } } }, /model "m", field "longPrompt": field "cacheRead"/],
    [{ '  ': good['my-model'] }, /prices\.json: a model id is empty/],
  ])('rejects %j, naming the file, the model and the field', (json, message) => {
    expect(() => parsePriceOverrides(json, 'prices.json')).toThrow(message);
  });

  it('keeps a "__proto__" key as an entry', () => {
    const table = parsePriceOverrides(JSON.parse('{"__proto__": {"input": 1, "output": 2, "cacheWrite": 1.25, "cacheRead": 0.1}}'), 'p');
    expect(Object.keys(table)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(table)).toBe(Object.prototype);
  });
});

describe('web search pricing', () => {
  it('adds $10 per 1,000 searches to a call, whatever the model; web fetches cost only their tokens', () => {
    const price = priceFor('claude-sonnet-5-5')!;
    const tokens = usage({ input_tokens: 1000, output_tokens: 100 });
    const base = costUsd(tokens, price);
    expect(costUsd({ ...tokens, server_tool_use: { web_search_requests: 3, web_fetch_requests: 0 } }, price)).toBeCloseTo(base + 0.03, 12);
    expect(costUsd({ ...tokens, server_tool_use: { web_search_requests: 0, web_fetch_requests: 4 } }, price)).toBeCloseTo(base, 12);
    expect(costUsd(usage({ server_tool_use: { web_search_requests: 1000, web_fetch_requests: 0 } }), priceFor('claude-haiku-4-5')!)).toBeCloseTo(10, 12);
  });
});
