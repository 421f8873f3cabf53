import { describe, expect, it } from 'vitest';
import {
  clientCompactionDue,
  COMPACTED_OPENING,
  compactionLine,
  contextClearThreshold,
  fromLastCompaction,
  lastCompactionIndex,
  recordClientCompaction,
  recordCompaction,
  withClientSummary,
  withInstruction,
} from '../../src/core/compaction.js';
import { initialRunState } from '../../src/core/run-state.js';
import { defaultSettings } from '../../src/core/settings.js';
import type { MessageParam, ModelReply, RunState, Usage } from '../../src/core/types.js';

const usage = (input: number, output = 10): Usage => ({ input_tokens: input, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
const compaction = (content: string | null) => ({ type: 'compaction', content, encrypted_content: null }) as never;
const conversation: MessageParam[] = [
  { role: 'user', content: 'task' },
  { role: 'assistant', content: [{ type: 'text', text: 'one', citations: null }] },
  { role: 'user', content: 'more' },
  { role: 'assistant', content: [compaction('summary'), { type: 'text', text: 'two', citations: null }] },
  { role: 'user', content: 'again' },
];

describe('fromLastCompaction', () => {
  it('sends the conversation from the last successful compaction block on, opened by a user message', () => {
    expect(lastCompactionIndex(conversation)).toBe(3);
    expect(fromLastCompaction(conversation)).toEqual([{ role: 'user', content: COMPACTED_OPENING }, conversation[3], conversation[4]]);
  });

  it('sends everything when there is no compaction, or only a failed one (content null: a no-op for the API)', () => {
    expect(fromLastCompaction(conversation.slice(0, 3))).toEqual(conversation.slice(0, 3));
    const failed: MessageParam[] = [conversation[0], { role: 'assistant', content: [compaction(null)] }, { role: 'user', content: 'x' }];
    expect(fromLastCompaction(failed)).toEqual(failed);
  });
});

describe('recordCompaction', () => {
  it('records where the block is and the compaction usage: what it read and the summary it wrote', () => {
    const state = initialRunState({ task: 't', settings: defaultSettings() }, 0) as RunState;
    const reply: ModelReply = { id: 'm', model: 'x', content: [compaction('s')], stopReason: 'end_turn', usage: usage(100), compactionUsage: usage(31_000, 250) };
    expect(recordCompaction(state, reply, 7)).toEqual({ messageIndex: 7, tokensBefore: 31_000, summaryTokens: 250 });
    expect(recordCompaction(state, { ...reply, content: [] }, 9)).toBeNull();
    expect(state.compactions).toHaveLength(1);
    expect(compactionLine(state.compactions![0], compaction('s'))).toBe('— compacted 31,000 tokens into a 250-token summary —');
  });
});

describe('client-side compaction', () => {
  const settings = defaultSettings({ compactAt: 30_000 });
  const state = (over: Partial<RunState>): RunState => ({ ...(initialRunState({ task: 't', settings }, 0) as RunState), ...over });

  it('is due only once the endpoint refused compaction, the last prompt reached the trigger, and the user has the turn', () => {
    const loop = { ...state({}).loop, lastCallUsage: usage(30_000) };
    expect(clientCompactionDue(state({ loop, messages: conversation.slice(0, 3) }), settings)).toBe(false);
    expect(clientCompactionDue(state({ loop, messages: conversation.slice(0, 3), refused: ['compaction'] }), settings)).toBe(true);
    expect(clientCompactionDue(state({ loop, messages: conversation.slice(0, 2), refused: ['compaction'] }), settings)).toBe(false);
    const small = { ...loop, lastCallUsage: usage(29_999) };
    expect(clientCompactionDue(state({ loop: small, messages: conversation.slice(0, 3), refused: ['compaction'] }), settings)).toBe(false);
    expect(clientCompactionDue(state({ loop, messages: conversation.slice(0, 3), refused: ['compaction'] }), { ...settings, compaction: false })).toBe(false);
  });

  it('records the summary and the first message it does not replace; requests send it in their place', () => {
    const s = state({ messages: conversation.slice(0, 3) });
    const reply: ModelReply = { id: 'm', model: 'x', content: [], stopReason: 'end_turn', usage: usage(32_000, 400) };
    expect(recordClientCompaction(s, 'the summary', reply)).toEqual({ messageIndex: 3, tokensBefore: 32_000, summaryTokens: 400, clientSide: true });
    const later = [...conversation.slice(0, 3), conversation[1], conversation[2]];
    const sent = withClientSummary(later, s.clientSummary!);
    expect(sent).toHaveLength(3);
    expect(sent[0]).toMatchObject({ role: 'user', content: expect.stringContaining('the summary') });
    expect(sent.slice(1)).toEqual(later.slice(3));
  });

  it('the summary request adds its instruction to the last user message, or as one', () => {
    expect(withInstruction(conversation.slice(0, 3), 'sum up').at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'more' }, { type: 'text', text: 'sum up' }] });
    expect(withInstruction(conversation.slice(0, 2), 'sum up').at(-1)).toEqual({ role: 'user', content: 'sum up' });
  });
});

describe('contextClearThreshold', () => {
  it('is off while compaction is on, unless given; the old default without compaction', () => {
    expect(contextClearThreshold(defaultSettings())).toBe(Number.POSITIVE_INFINITY);
    expect(contextClearThreshold(defaultSettings({ contextClearAtTokens: 90_000 }))).toBe(90_000);
    expect(contextClearThreshold(defaultSettings({ compaction: false }))).toBe(150_000);
  });
});
