// The scripted model's prompt-cache accounting: what a caching client should see in `usage`.
import { describe, expect, it } from 'vitest';
import { MIN_CACHEABLE_TOKENS, PromptCache } from '../../src/scripted/prompt-cache.js';
import type { MessagesRequestBody } from '../../src/scripted/index.js';

const long = (n: number) => 'w'.repeat(n * 4); // about n tokens
const marked = (text: string) => ({ type: 'text' as const, text, cache_control: { type: 'ephemeral' as const } });

function request(messages: MessagesRequestBody['messages']): MessagesRequestBody {
  return { model: 'm', max_tokens: 10, messages };
}

describe('PromptCache', () => {
  it('writes the prefix up to the marker, then reads it on the next request that starts with it', () => {
    const cache = new PromptCache();
    const first = cache.account(request([{ role: 'user', content: [marked(long(2000))] }]));
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThanOrEqual(2000);

    const second = cache.account(
      request([
        { role: 'user', content: [{ type: 'text', text: long(2000) }] },
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
        { role: 'user', content: [marked(long(300))] },
      ]),
    );
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(second.cache_creation_input_tokens).toBeGreaterThanOrEqual(300);
    expect(second.input_tokens).toBe(0);
  });

  it('caches nothing without a marker, or below the minimum cacheable length', () => {
    const cache = new PromptCache();
    const unmarked = cache.account(request([{ role: 'user', content: long(3000) }]));
    expect(unmarked).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
    const short = cache.account(request([{ role: 'user', content: [marked(long(MIN_CACHEABLE_TOKENS / 2))] }]));
    expect(short).toMatchObject({ cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
  });

  it('a changed prefix is a miss: the whole prefix is written again', () => {
    const cache = new PromptCache();
    cache.account(request([{ role: 'user', content: [marked(long(2000))] }]));
    const changed = cache.account(request([{ role: 'user', content: [marked(`${long(2000)}!`)] }]));
    expect(changed.cache_read_input_tokens).toBe(0);
    expect(changed.cache_creation_input_tokens).toBeGreaterThan(2000);
  });
});
