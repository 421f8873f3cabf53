import { describe, expect, it } from 'vitest';
import { compareEventIds, messageEvents, parseEventId, streamedDelta } from '../../src/core/run-events.js';

describe('run event ids', () => {
  it('order by transcript position, then phase (live, message, end), then counter', () => {
    const ids = ['4.2.0', '2.1.1', '2.0.0', '1.1.2', '1.0.7', '10.0.0', '3.1.0', '1.1.0'];
    expect([...ids].sort(compareEventIds)).toEqual(['1.0.7', '1.1.0', '1.1.2', '2.0.0', '2.1.1', '3.1.0', '4.2.0', '10.0.0']);
  });

  it('parse only ids of that shape (a Last-Event-ID from elsewhere is refused, not guessed at)', () => {
    expect(parseEventId('12.1.3')).toEqual([12, 1, 3]);
    for (const bad of ['', 'x', '1.3.0', '1.1', '-1.0.0', '1.1.1.1', '99999999999.0.0']) expect(parseEventId(bad)).toBeUndefined();
  });
});

describe('messageEvents', () => {
  it('an assistant message is a step and one tool_call per tool_use block, ids by block, the same at every read', () => {
    const message = {
      role: 'assistant' as const,
      content: [
        { type: 'text' as const, text: 'Let me compute.' },
        { type: 'tool_use' as const, id: 'toolu_1', name: 'calculator', input: { expression: '1+1' } },
      ],
    };
    expect(messageEvents(message, 3)).toEqual([
      { id: '3.1.0', event: 'step', data: { message: 3, text: 'Let me compute.', toolCalls: 1 } },
      { id: '3.1.2', event: 'tool_call', data: { toolUseId: 'toolu_1', name: 'calculator', input: { expression: '1+1' } } },
    ]);
    expect(messageEvents(message, 3)).toEqual(messageEvents(structuredClone(message), 3));
  });

  it('a user message gives its tool results; a task or follow-up text gives none', () => {
    expect(
      messageEvents({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '2' }], is_error: true }] }, 4),
    ).toEqual([{ id: '4.1.1', event: 'tool_result', data: { toolUseId: 'toolu_1', isError: true, content: '2' } }]);
    expect(messageEvents({ role: 'user', content: 'the task' }, 0)).toEqual([]);
  });
});

describe('streamedDelta', () => {
  it('is what a sliding window of the last words gained, all of it when the windows do not overlap', () => {
    expect(streamedDelta('', 'Hello')).toBe('Hello');
    expect(streamedDelta('Hello', 'Hello wor')).toBe(' wor');
    expect(streamedDelta('abcdef', 'defghi')).toBe('ghi');
    expect(streamedDelta('same', 'same')).toBe('');
    expect(streamedDelta('abc', 'xyz')).toBe('xyz');
    expect(streamedDelta('…lo wor', '…world!')).toBe('ld!');
  });
});
