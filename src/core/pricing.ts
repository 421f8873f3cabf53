// Prices from https://platform.claude.com/docs/en/about-claude/pricing, read 2026-10-10
// ("Model pricing" table: base input, 5m cache writes, cache hits and refreshes, output; USD per MTok).
// Only this file holds prices: the budget guard, the CLI and the result all read them from here, and a user's
// `--prices` file overrides them (parsePriceOverrides) when Anthropic changes a figure before we do.
// The Message Batches API bills every token at BATCH_PRICE_FACTOR of these prices, cache discounts on top (costUsd's
// `batch`). Not modelled: 1h cache writes (the activity only writes 5-minute entries), fast mode, data
// residency multipliers, and the >200K long-context premium of Sonnet 4 / 4.5 (it needs a beta header we do
// not send, so such prompts are rejected rather than billed). Pure: the workflow bundle imports this module.
import type { Usage } from './types.js';
import { isObject } from './is-object.js';
import { promptTokens } from './transcript.js';

/** USD per million tokens of each billed kind. */
export interface Rates {
  input: number;
  output: number;
  /** 5-minute cache write (`cache_creation_input_tokens`). */
  cacheWrite: number;
  /** Cache hit or refresh (`cache_read_input_tokens`). */
  cacheRead: number;
}

/** USD per MTok. `longPrompt` exists for models billed by prompt length (Haiku 5.5): rates that replace the base ones
 * for a whole request whose prompt is longer than `overTokens`. */
export interface ModelPrice extends Rates {
  longPrompt?: Rates & { overTokens: number };
}

export type PriceTable = Record<string, ModelPrice>;

/** Web search (server tool) is billed per search, on top of the tokens its results add: $10 per 1,000 searches,
 * whatever the model. Source: Anthropic's pricing page (https://platform.claude.com/docs/en/about-claude/pricing,
 * "Web search tool"), recorded 2026-12-01. Web fetch has no charge beyond its tokens; code execution is billed
 * by container time, which the usage does not report (not modelled). */
export const WEB_SEARCH_USD_PER_1000 = 10;

const rates = (input: number, output: number, cacheWrite: number, cacheRead: number): Rates => ({
  input,
  output,
  cacheWrite,
  cacheRead,
});
const OPUS_4_5_TO_5 = rates(5, 25, 6.25, 0.5);
const OPUS_4_AND_4_1 = rates(15, 75, 18.75, 1.5);
const SONNET_4_TO_4_6 = rates(3, 15, 3.75, 0.3);

// Keyed by the undated model id; priceFor maps snapshots and aliases onto these keys.
export const PRICES: PriceTable = {
  // Fable 5.1 cache hits are 0.025x input (page footnote 1); Fable 5 keeps the standard 0.1x.
  'claude-fable-5-1': rates(10, 50, 12.5, 0.25),
  'claude-fable-5': rates(10, 50, 12.5, 1),
  // Opus 5.5 and Sonnet 5.5 cache hits are 0.05x input (footnote 2; Sonnet 5.5's was cut from $0.20 on
  // 2026-10-07).
  'claude-opus-5-5': rates(4, 20, 5, 0.2),
  'claude-opus-5': OPUS_4_5_TO_5,
  'claude-opus-4-8': OPUS_4_5_TO_5,
  'claude-opus-4-7': OPUS_4_5_TO_5,
  'claude-opus-4-6': OPUS_4_5_TO_5,
  'claude-opus-4-5': OPUS_4_5_TO_5,
  'claude-opus-4-1': OPUS_4_AND_4_1,
  'claude-opus-4': OPUS_4_AND_4_1,
  'claude-sonnet-5-5': rates(2, 10, 2.5, 0.1),
  // Sonnet 5's introductory $2 / $10 became its standard price (footnote 3).
  'claude-sonnet-5': rates(2, 10, 2.5, 0.2),
  'claude-sonnet-4-6': SONNET_4_TO_4_6,
  'claude-sonnet-4-5': SONNET_4_TO_4_6,
  'claude-sonnet-4': SONNET_4_TO_4_6,
  // Two rows on the page: prompts up to 100,000 tokens, and longer ones (input + cache reads + cache writes).
  'claude-haiku-5-5': { ...rates(0.1, 0.5, 0.125, 0.01), longPrompt: { overTokens: 100_000, ...rates(0.5, 2.5, 0.625, 0.05) } },
  'claude-haiku-4-5': rates(1, 5, 1.25, 0.1),
  // Retired on the Claude API (still on Bedrock and Google Cloud); kept for the `-latest` alias of its era.
  'claude-3-5-haiku': rates(0.8, 4, 1, 0.08),
};

/** Aliases that are neither a dated snapshot nor `-latest`. */
const ALIASES: Record<string, string> = {
  'claude-opus-4-0': 'claude-opus-4',
  'claude-sonnet-4-0': 'claude-sonnet-4',
};

/** The price of `model`: the exact id first, then the id without a `-latest` or `-YYYYMMDD` suffix
 * (`claude-sonnet-4-5-20250929` is billed as `claude-sonnet-4-5`), then a known alias. */
export function priceFor(model: string, table: PriceTable = PRICES): ModelPrice | undefined {
  const id = model.trim().toLowerCase();
  const base = id.replace(/-(latest|\d{8})$/, '');
  for (const key of [id, base, ALIASES[base]]) {
    if (key !== undefined && Object.hasOwn(table, key)) return table[key];
  }
  return undefined;
}

/** The rates one request is billed at: the long-prompt row when its prompt is over the threshold. */
export function ratesFor(price: ModelPrice, promptTokens: number): Rates {
  return price.longPrompt && promptTokens > price.longPrompt.overTokens ? price.longPrompt : price;
}

/** Money as every output shows it: to the micro-dollar (6 decimals). Prices add up in binary floating point, so a
 * run's sum reads 0.0015119999999999999 where 0.001512 is meant. Outputs only: the run's own total, which its
 * budget guard compares, keeps every digit (rounding it in the workflow would change what a replay decides). */
export function roundUsd(usd: number): number;
export function roundUsd(usd: number | null): number | null;
export function roundUsd(usd: number | undefined): number | undefined;
export function roundUsd(usd: number | null | undefined): number | null | undefined {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return usd;
  return Math.round(usd * 1e6) / 1e6;
}

/** A status view (or anything with a `costUsd` and child runs) with its money rounded for output (roundUsd). */
export function withRoundedCosts<T extends { costUsd: number | null; children?: ReadonlyArray<{ costUsd: number | null }> }>(view: T): T {
  return {
    ...view,
    costUsd: roundUsd(view.costUsd),
    ...(view.children ? { children: view.children.map((c) => ({ ...c, costUsd: roundUsd(c.costUsd) })) } : {}),
  };
}

/** A request of a Message Batch is billed at half the standard price of its tokens ("All usage is billed at 50% of
 * standard API prices", https://platform.claude.com/docs/en/build-with-claude/batch-processing, read 2026-12-06); the
 * prompt-caching multipliers apply on top, so a batch cache hit costs half of a direct one. Web searches keep their
 * per-search fee: the page halves token usage, and a budget guard should not count a fee it is not sure is halved. */
export const BATCH_PRICE_FACTOR = 0.5;

/** The cost of ONE model call (its tokens, and its web searches); `batch`: a Message Batch request's (its tokens at
 * BATCH_PRICE_FACTOR). Call it per call and add the results: a length-tiered price is decided by each
 * request's prompt, so pricing a run's summed usage at once would apply the long-prompt rates wrongly. */
export function costUsd(usage: Usage, price: ModelPrice, batch = false): number {
  const r = ratesFor(price, promptTokens(usage));
  const searches = usage.server_tool_use?.web_search_requests ?? 0;
  const tokens =
    (usage.input_tokens * r.input +
      usage.output_tokens * r.output +
      usage.cache_creation_input_tokens * r.cacheWrite +
      usage.cache_read_input_tokens * r.cacheRead) /
    1_000_000;
  return tokens * (batch ? BATCH_PRICE_FACTOR : 1) + (searches * WEB_SEARCH_USD_PER_1000) / 1000;
}

/**
 * A LOWER bound on the next model call, for "the next call cannot fit in the budget": stopping on it never
 * stops a call that would have fit. Why it holds:
 * - The transcript only grows, so the next prompt repeats the whole previous prompt (input + cache writes +
 *   cache reads) and adds the previous reply: prompt >= all of those + previous output_tokens.
 * - Output >= 1 token, not max_tokens: a call may end after one token.
 * - USD: the repeated prompt might all be cache hits, so it is priced at the cheapest input-side rate; the
 *   previous reply was never part of a prompt, so it cannot be a cache hit and is priced at the cheaper of
 *   input and cache write. The rates are those of a prompt of the bound's size: the real prompt is at least
 *   as long, so it is in the same or a dearer tier.
 * `tokens` counts prompt and output together, like the run's token total. Before the first call nothing is
 * known but the output token. `maxOutputTokens` only caps that one token (max_tokens 0 yields none).
 */
export function estimateNextCall(
  prevUsage: Usage | null,
  maxOutputTokens: number,
  price: ModelPrice,
): { tokens: number; usd: number } {
  const repeated = promptTokens(prevUsage);
  const added = prevUsage?.output_tokens ?? 0;
  const output = Math.min(1, Math.max(0, maxOutputTokens));
  const r = ratesFor(price, repeated + added);
  const usd =
    (repeated * Math.min(r.input, r.cacheWrite, r.cacheRead) +
      added * Math.min(r.input, r.cacheWrite) +
      output * r.output) /
    1_000_000;
  return { tokens: repeated + added + output, usd };
}

const RATE_FIELDS = ['input', 'output', 'cacheWrite', 'cacheRead'] as const;

/**
 * Validates the content of a user's price file: `{ "model-id": { "input": 3, "output": 15, "cacheWrite":
 * 3.75, "cacheRead": 0.3 } }`, optionally with `"longPrompt": { "overTokens": 100000, ...the four rates }`.
 * Every error names `source`, the model and the field, since a wrong price silently mis-budgets every run.
 * Unknown fields are errors too: a typo such as `cache_read` would otherwise fall back to nothing.
 */
export function parsePriceOverrides(json: unknown, source: string): PriceTable {
  if (!isObject(json)) {
    throw new Error(`${source}: expected an object of model ids to prices, got ${describe(json)}`);
  }
  const table: PriceTable = {};
  for (const [rawId, entry] of Object.entries(json)) {
    const id = rawId.trim().toLowerCase();
    const where = `${source}: model "${rawId}"`;
    if (id === '') throw new Error(`${source}: a model id is empty`);
    const price: ModelPrice = parseRates(entry, where, ['longPrompt']);
    if (isObject(entry) && entry.longPrompt !== undefined) {
      const tier = entry.longPrompt;
      const overTokens = isObject(tier) ? tier.overTokens : undefined;
      if (typeof overTokens !== 'number' || !Number.isInteger(overTokens) || overTokens <= 0) {
        throw new Error(`${where}: field "longPrompt.overTokens" must be a positive integer, got ${describe(overTokens)}`);
      }
      price.longPrompt = { overTokens, ...parseRates(tier, `${where}, field "longPrompt"`, ['overTokens']) };
    }
    // defineProperty, not assignment: a key such as "__proto__" must stay a plain entry.
    Object.defineProperty(table, id, { value: price, enumerable: true, writable: true, configurable: true });
  }
  return table;
}

function parseRates(entry: unknown, where: string, extraFields: string[]): Rates {
  if (!isObject(entry)) throw new Error(`${where}: expected an object of prices, got ${describe(entry)}`);
  for (const key of Object.keys(entry)) {
    if (!(RATE_FIELDS as readonly string[]).includes(key) && !extraFields.includes(key)) {
      throw new Error(`${where}: unknown field "${key}" (expected ${RATE_FIELDS.join(', ')})`);
    }
  }
  const out = {} as Rates;
  for (const field of RATE_FIELDS) {
    const value = entry[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new Error(`${where}: field "${field}" must be a non-negative number of USD per million tokens, got ${describe(value)}`);
    }
    out[field] = value;
  }
  return out;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  return Array.isArray(value) ? 'an array' : (JSON.stringify(value) ?? String(value));
}
