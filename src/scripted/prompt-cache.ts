// Prompt-cache accounting for the scripted model, so a client's caching shows up in `usage` the way it does
// on the real API: the prompt prefix up to the last `cache_control` marker is written to the cache; a later
// request whose prompt starts with a prefix written before reads that part from the cache. Prefixes shorter
// than the API's minimum cacheable length are not cached. Token counts are estimates (4 characters a token).
import { createHash } from 'node:crypto';
import type { MessagesRequestBody } from './script.js';

/** The smallest prompt prefix the API caches (Sonnet and Opus; Haiku needs more). */
export const MIN_CACHEABLE_TOKENS = 1024;

export interface CacheUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

type Json = Record<string, unknown>;

export class PromptCache {
  readonly #written = new Set<string>();

  account(body: MessagesRequestBody): CacheUsage {
    const segments = segmentsOf(body);
    const tokens = segments.map((s) => Math.ceil(s.text.length / 4));
    const total = tokens.reduce((a, b) => a + b, 0);
    const breakpoint = segments.map((s) => s.marked).lastIndexOf(true);
    if (breakpoint < 0) return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const hashes: string[] = [];
    const hash = createHash('sha256');
    for (const s of segments) hashes.push(hash.update(s.text).copy().digest('hex'));
    const prefixTokens = (end: number) => tokens.slice(0, end + 1).reduce((a, b) => a + b, 0);
    if (prefixTokens(breakpoint) < MIN_CACHEABLE_TOKENS) {
      return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    }
    let hit = -1;
    for (let i = breakpoint; i >= 0; i--) {
      if (this.#written.has(hashes[i])) {
        hit = i;
        break;
      }
    }
    this.#written.add(hashes[breakpoint]);
    const read = hit >= 0 ? prefixTokens(hit) : 0;
    const written = prefixTokens(breakpoint) - read;
    return { input_tokens: total - read - written, cache_creation_input_tokens: written, cache_read_input_tokens: read };
  }
}

/** The prompt's size in tokens (estimated, 4 characters a token), cached or not. */
export function promptTokens(body: MessagesRequestBody): number {
  return segmentsOf(body).reduce((sum, s) => sum + Math.ceil(s.text.length / 4), 0);
}

/** The prompt in cache order (tools, system, messages), one segment per block, cache markers noted and removed
 * (a marker does not change what is cached). */
function segmentsOf(body: MessagesRequestBody): Array<{ text: string; marked: boolean }> {
  const segments: Array<{ text: string; marked: boolean }> = [];
  const add = (value: unknown) => {
    const { cache_control, ...rest } = (value ?? {}) as Json;
    segments.push({ text: JSON.stringify(typeof value === 'object' ? rest : value), marked: Boolean(cache_control) });
  };
  for (const tool of body.tools ?? []) add(tool);
  if (typeof body.system === 'string') add(body.system);
  else for (const block of body.system ?? []) add(block);
  for (const message of body.messages) {
    if (typeof message.content === 'string') add({ role: message.role, text: message.content });
    else for (const block of message.content) add({ role: message.role, ...(block as unknown as Json) });
  }
  if (body.cache_control) segments[segments.length - 1].marked = true;
  return segments;
}
