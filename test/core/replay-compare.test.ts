// The pure part of `replay`: a transcript's steps and their calls, what counts as the same result, the short diff.
import { describe, expect, it } from 'vitest';
import { notAnsweredByTool, recordedStepsOf, sameResult, sameToolCalls, shortDiff } from '../../src/core/replay-compare.js';
import { fitForContinueAsNew, freshLoop, notRunResults } from '../../src/core/run-state.js';
import type { MessageParam } from '../../src/core/types.js';

describe('replay comparisons', () => {
  it('reads each step with its tool calls and their recorded results (none yet for a call still running)', () => {
    const messages: MessageParam[] = [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'calculator', input: { expression: '1+1' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: '2', is_error: true }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'lookup', input: { item: 'tea' } }] },
    ];
    expect(recordedStepsOf(messages)).toEqual([
      { step: 1, messageIndex: 1, calls: [{ toolUseId: 'a', name: 'calculator', input: { expression: '1+1' }, result: { content: '2', isError: true } }] },
      { step: 2, messageIndex: 3, calls: [{ toolUseId: 'b', name: 'lookup', input: { item: 'tea' } }] },
    ]);
  });

  it("tells the results a run wrote itself (a stop's unrun or cut-off call) from a tool's own, which may say the same without the error flag", () => {
    const messages: MessageParam[] = [
      { role: 'user', content: 'task' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'lookup', input: {} }, { type: 'tool_use', id: 'b', name: 'lookup', input: {} }] },
    ];
    const closing = notRunResults(messages, 'the run was stopped by the deadline guard', { a: 'in_flight' })!;
    const [interrupted, notRun] = (closing.content as Array<{ content: string; is_error: boolean }>).map((r) => ({ content: r.content, isError: r.is_error }));
    expect(notAnsweredByTool(interrupted)).toMatch(/^cut off in the recorded run/);
    expect(notAnsweredByTool(notRun)).toMatch(/^not run in the recorded run/);
    expect(notAnsweredByTool({ content: [{ type: 'text', text: notRun.content }], isError: true })).toMatch(/^not run/);
    expect(notAnsweredByTool({ content: notRun.content, isError: false })).toBeNull();
    expect(notAnsweredByTool({ content: 'tea costs 42 EUR', isError: true })).toBeNull();
  });

  it('a tool result continue-as-new trimmed to a note is not compared: the tool gave more than the recording kept', () => {
    const big = 'x'.repeat(5_000);
    const messages: MessageParam[] = [{ role: 'user', content: 'task' }];
    for (let i = 0; i < 12; i++) {
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'lookup', input: {} }] });
      messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: big }] });
    }
    const state = { messages, loop: freshLoop(12), stopReason: null, deadlineAt: null, runsUsed: 1, pendingMessages: [], clearedUpTo: 0, chatClosed: false };
    const fitted = fitForContinueAsNew(state, 40_000)!;
    const [first] = recordedStepsOf(fitted.messages)[0].calls;
    expect(notAnsweredByTool(first.result!)).toMatch(/^trimmed at continue-as-new in the recorded run/);
    const last = recordedStepsOf(fitted.messages).at(-1)!.calls[0];
    expect(notAnsweredByTool(last.result!)).toBeNull(); // kept whole
  });

  it('a string and a single text block are the same result; the error flag counts; inputs compare by canonical JSON', () => {
    expect(sameResult({ content: '42', isError: false }, { content: [{ type: 'text', text: '42' }], isError: false })).toBe(true);
    expect(sameResult({ content: '42', isError: false }, { content: '42', isError: true })).toBe(false);
    expect(sameToolCalls([{ name: 'f', input: { a: 1, b: 2 } }], [{ name: 'f', input: { b: 2, a: 1 } }])).toBe(true);
    expect(sameToolCalls([{ name: 'f', input: {} }], [{ name: 'g', input: {} }])).toBe(false);
  });

  it('the diff shows both sides from just before where they first differ', () => {
    expect(shortDiff('tea costs 42 EUR', 'tea costs 45 USD')).toBe('recorded: tea costs 42 EUR\n     new: tea costs 45 USD');
    const long = 'x'.repeat(300);
    expect(shortDiff(`${long}A`, `${long}B`)).toBe(`recorded: …${'x'.repeat(20)}A\n     new: …${'x'.repeat(20)}B`);
  });
});
