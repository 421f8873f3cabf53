// The progress a streaming model call reports in its heartbeat details: small, and made of what was streamed.
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { ProgressTracker } from '../../src/activities/stream.js';
import { MODEL_PROGRESS_WORDS } from '../../src/core/policies.js';

const start = (index: number, content_block: Record<string, unknown>) =>
  ({ type: 'content_block_start', index, content_block }) as unknown as Anthropic.MessageStreamEvent;
const delta = (index: number, d: Record<string, unknown>) => ({ type: 'content_block_delta', index, delta: d }) as unknown as Anthropic.MessageStreamEvent;

describe('ProgressTracker', () => {
  it('keeps the last words of the current block, cut at a word, and estimates tokens until the final count', () => {
    const p = new ProgressTracker();
    expect(p.snapshot()).toMatchObject({ outputTokens: 0, lastWords: '', producing: 'waiting', events: 0 });
    p.add(start(0, { type: 'thinking', thinking: '' }));
    p.add(delta(0, { type: 'thinking_delta', thinking: 'pondering the question' }));
    expect(p.snapshot()).toMatchObject({ producing: 'thinking', lastWords: 'pondering the question' });
    p.add(start(1, { type: 'text', text: '' }));
    const words = Array.from({ length: 100 }, (_, i) => `w${i}`);
    for (const w of words) p.add(delta(1, { type: 'text_delta', text: `${w}\n ` }));
    const snap = p.snapshot();
    expect(snap.producing).toBe('text');
    expect(snap.lastWords.startsWith('…w')).toBe(true);
    expect(snap.lastWords.endsWith('w99')).toBe(true);
    expect(Array.from(snap.lastWords).length).toBeLessThanOrEqual(MODEL_PROGRESS_WORDS + 1);
    // Whole words after the ellipsis, single spaces: the tail of the text as written.
    expect(words.join(' ')).toContain(snap.lastWords.slice(1));
    const streamedChars = 'pondering the question'.length + words.reduce((n, w) => n + w.length + 2, 0);
    expect(snap.outputTokens).toBe(Math.ceil(streamedChars / 4));
    expect(snap.events).toBe(103);

    p.add(start(2, { type: 'tool_use', id: 'toolu_1', name: 'calculator', input: {} }));
    p.add(delta(2, { type: 'input_json_delta', partial_json: '{"expression":"1+1"}' }));
    expect(p.snapshot().producing).toBe('tool_use calculator');
    p.add({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 321 } } as unknown as Anthropic.MessageStreamEvent);
    expect(p.snapshot().outputTokens).toBe(321);
  });

  it('never splits an emoji when it cuts the words', () => {
    const p = new ProgressTracker();
    p.add(start(0, { type: 'text', text: '' }));
    for (let i = 0; i < 200; i++) p.add(delta(0, { type: 'text_delta', text: '🙂' }));
    const words = p.snapshot().lastWords;
    expect(words.replace(/^…/, '')).toMatch(/^(🙂)+$/u);
  });
});
