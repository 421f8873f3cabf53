// The run state and the messages that close a run a guard stopped.
import { describe, expect, it } from 'vitest';
import type { GuardTripped } from '../../src/core/guards.js';
import { fitForContinueAsNew, initialRunState, notRunResults, summaryRequest, utf8Bytes } from '../../src/core/run-state.js';
import { defaultSettings } from '../../src/core/settings.js';
import type { MessageParam } from '../../src/core/types.js';

const tripped: GuardTripped = { guard: 'repetition', reason: 'web_search was requested 3 times with the same arguments' };
const why = `the run was stopped by the ${tripped.guard} guard (${tripped.reason})`;

const twoToolsOpen: MessageParam[] = [
  { role: 'user', content: 'find things' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Looking.', citations: null },
      { type: 'tool_use', id: 'toolu_a', name: 'web_search', input: { query: 'x' } },
      { type: 'tool_use', id: 'toolu_b', name: 'calculator', input: { expression: '1+1' } },
    ],
  } as MessageParam,
];

describe('initialRunState', () => {
  it('starts with the task as the one user message and all counters at zero', () => {
    const state = initialRunState({ task: 'the task', settings: defaultSettings() }, 1_000);
    expect(state.messages).toEqual([{ role: 'user', content: 'the task' }]);
    expect(state.loop).toEqual({
      steps: 0,
      toolCalls: 0,
      usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      lastCallUsage: null,
      costUsd: null,
      toolCallHashes: {},
      errorStreak: 0,
    });
    expect(state.stopReason).toBeNull();
  });

  it('fixes the deadline once as an absolute time, and has none without deadlineMs', () => {
    expect(initialRunState({ task: 't', settings: defaultSettings({ deadlineMs: 90_000 }) }, 1_000).deadlineAt).toBe(91_000);
    expect(initialRunState({ task: 't', settings: defaultSettings() }, 1_000).deadlineAt).toBeNull();
  });

  it('gives each run its own usage object (the zero usage constant is never shared)', () => {
    const a = initialRunState({ task: 't', settings: defaultSettings() }, 0);
    a.loop.usage.input_tokens = 5;
    expect(initialRunState({ task: 't', settings: defaultSettings() }, 0).loop.usage.input_tokens).toBe(0);
  });
});

describe('notRunResults', () => {
  it('answers every open tool_use of the last assistant turn with an is_error result, in order, saying why', () => {
    const closing = notRunResults(twoToolsOpen, why);
    expect(closing?.role).toBe('user');
    const content = closing?.content as Array<{ type: string; tool_use_id: string; content: string; is_error: boolean }>;
    expect(content.map((b) => [b.type, b.tool_use_id, b.is_error])).toEqual([
      ['tool_result', 'toolu_a', true],
      ['tool_result', 'toolu_b', true],
    ]);
    for (const block of content) expect(block.content).toBe(`Not run: ${why}.`);
  });

  it('is null when nothing is open: the last message is the user, or an assistant turn without tool_use', () => {
    expect(notRunResults([{ role: 'user', content: 'task' }], why)).toBeNull();
    const answered: MessageParam[] = [
      ...twoToolsOpen,
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: 'r' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: '2' },
        ],
      },
    ];
    expect(notRunResults(answered, why)).toBeNull();
    const textOnly: MessageParam[] = [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: [{ type: 'text', text: 'done', citations: null }] },
    ];
    expect(notRunResults(textOnly, why)).toBeNull();
    expect(notRunResults([{ role: 'user', content: 'task' }, { role: 'assistant', content: 'plain string' }], why)).toBeNull();
    expect(notRunResults([], why)).toBeNull();
  });
});

describe('summaryRequest', () => {
  it('puts the not-run results first and then the text asking for a partial summary without tools', () => {
    const message = summaryRequest(twoToolsOpen, tripped);
    expect(message.role).toBe('user');
    const content = message.content as Array<{ type: string; tool_use_id?: string; is_error?: boolean; text?: string }>;
    expect(content.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text']);
    expect(content.slice(0, 2).map((b) => [b.tool_use_id, b.is_error])).toEqual([
      ['toolu_a', true],
      ['toolu_b', true],
    ]);
    const text = content[2].text!;
    expect(text).toContain(tripped.reason);
    expect(text).toMatch(/cannot use tools/);
    expect(text).toMatch(/partial answer/);
  });

  it('is only the text when no tool_use is open', () => {
    const message = summaryRequest([{ role: 'user', content: 'task' }], { guard: 'max_steps', reason: 'step cap reached' });
    const content = message.content as Array<{ type: string; text?: string }>;
    expect(content).toHaveLength(1);
    expect(content[0].type).toBe('text');
    expect(content[0].text).toContain('step cap reached');
  });
});

describe('fitForContinueAsNew', () => {
  const big = (n: number) => 'b'.repeat(n);
  const state = (results: number[]) => {
    const s = initialRunState({ task: 'task', settings: defaultSettings() }, 0);
    results.forEach((size, i) => {
      s.messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'x', input: {} }] } as never);
      s.messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: big(size) }] });
    });
    return s;
  };

  it('returns the state unchanged when it fits', () => {
    const s = state([10, 10]);
    expect(fitForContinueAsNew(s, 10_000)).toBe(s);
  });

  it('trims the oldest tool results first, keeping the most recent messages whole, until it fits', () => {
    const s = state([5000, 5000, 5000, 5000, 5000]);
    const fitted = fitForContinueAsNew(s, 20_000)!;
    expect(JSON.stringify(fitted).length).toBeLessThanOrEqual(20_000);
    const contents = fitted.messages.filter((m) => m.role === 'user' && typeof m.content !== 'string')
      .map((m) => ((m.content as Array<{ content: string }>)[0]).content);
    expect(contents[0]).toMatch(/trimmed at continue-as-new: 5000 characters/);
    expect(contents.at(-1)).toBe(big(5000));
    expect(fitted.messages).toHaveLength(s.messages.length);
  });

  it('returns null when even trimming cannot make it fit', () => {
    expect(fitForContinueAsNew(state([9000, 9000, 9000]), 1000)).toBeNull();
  });
});

describe('utf8Bytes', () => {
  it('counts bytes as UTF-8 encodes them, not characters', () => {
    for (const text of ['plain ascii', 'café', '中文字符', 'emoji 🎉 and 👍🏽', '']) {
      expect(utf8Bytes(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
  });

  it('fitForContinueAsNew measures bytes: a transcript of 3-byte characters is trimmed by its byte size', () => {
    const s = initialRunState({ task: 'task', settings: defaultSettings() }, 0);
    for (let i = 0; i < 8; i++) {
      s.messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'x', input: {} }] } as never);
      s.messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: '中'.repeat(3000) }] });
    }
    // About 24k characters, but about 72 KB: over a 40 KB limit only when bytes are counted.
    expect(JSON.stringify(s).length).toBeLessThan(40_000);
    const fitted = fitForContinueAsNew(s, 40_000)!;
    expect(fitted).not.toBe(s);
    expect(utf8Bytes(JSON.stringify(fitted))).toBeLessThanOrEqual(40_000);
  });
});

describe('notRunResults with the turn progress', () => {
  it('keeps the real result of a call that finished, marks a running one as interrupted, and one not started as not run', () => {
    const messages: MessageParam[] = [
      { role: 'user', content: 'task' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'x', input: {} },
          { type: 'tool_use', id: 'b', name: 'x', input: {} },
          { type: 'tool_use', id: 'c', name: 'x', input: {} },
        ],
      } as never,
    ];
    const closing = notRunResults(messages, 'the run was cancelled', { a: { isError: false, content: 'done' }, b: 'in_flight' });
    expect(closing).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'a', content: 'done' },
        {
          type: 'tool_result',
          tool_use_id: 'b',
          is_error: true,
          content: 'Interrupted: the run was cancelled. The call was running and may or may not have taken effect.',
        },
        { type: 'tool_result', tool_use_id: 'c', is_error: true, content: 'Not run: the run was cancelled.' },
      ],
    });
  });
});
