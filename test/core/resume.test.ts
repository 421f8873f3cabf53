// What a resumed run starts from: the new limits counted from where the old run stopped, the recent-past guards
// reset, a deadline from the resume (or none), and a transcript the API accepts as the next request.
import { describe, expect, it } from 'vitest';
import { resumedRun } from '../../src/core/resume.js';
import { initialRunState } from '../../src/core/run-state.js';
import { defaultSettings } from '../../src/core/settings.js';
import type { AgentResult, MessageParam } from '../../src/core/types.js';

const settings = defaultSettings({ maxSteps: 4, budgetTokens: 1_000, deadlineMs: 60_000 });
const base = initialRunState({ task: 'count the stars', settings }, 1_000);
const state = {
  ...base,
  deadlineAt: 61_000,
  loop: {
    ...base.loop,
    steps: 4,
    usage: { input_tokens: 700, output_tokens: 300, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    errorStreak: 2,
    toolCallHashes: { 'calculator:2:abc': 3 },
  },
  pendingMessages: ['a follow-up never read'],
};
const previous = { status: 'stopped', guard: 'max_steps', error: null } as unknown as AgentResult;

describe('resumedRun', () => {
  it('counts the new limits from where the run stopped and resets the guards of the recent past', () => {
    const { settings: next, carried } = resumedRun({ task: 'count the stars', settings }, { state, messages: base.messages }, previous, { moreSteps: 5, moreBudgetTokens: 500 }, 10_000);
    expect(next.maxSteps).toBe(9);
    expect(next.budgetTokens).toBe(1_500);
    expect(carried.loop).toMatchObject({ steps: 4, errorStreak: 0, toolCallHashes: {} });
    expect(carried.pendingMessages).toEqual([]);
  });

  it('counts new dollars from what the run (its sub-agents included) has spent, for a run its dollar budget stopped', () => {
    const spent = { ...state, loop: { ...state.loop, costUsd: 0.8 } };
    const byBudget = { status: 'stopped', guard: 'budget', error: null } as unknown as AgentResult;
    const { settings: next } = resumedRun({ task: 'count the stars', settings: { ...settings, budgetUsd: 0.75 } }, { state: spent, messages: base.messages }, byBudget, { moreBudgetUsd: 0.5 }, 10_000);
    expect(next.budgetUsd).toBe(1.3);
    // Without it, the budget stays as it was.
    expect(resumedRun({ task: 'x', settings: { ...settings, budgetUsd: 0.75 } }, { state: spent, messages: base.messages }, byBudget, {}, 10_000).settings.budgetUsd).toBe(0.75);
  });

  it('gives a deadline counted from the resume, and none without a new one', () => {
    const withDeadline = resumedRun({ task: 't', settings }, { state, messages: base.messages }, previous, { deadlineMs: 5_000 }, 10_000);
    expect(withDeadline.settings.deadlineMs).toBe(5_000);
    expect(withDeadline.carried.deadlineAt).toBe(15_000);
    const without = resumedRun({ task: 't', settings }, { state, messages: base.messages }, previous, {}, 10_000);
    expect(without.settings.deadlineMs).toBeUndefined();
    expect(without.carried.deadlineAt).toBeNull();
  });

  it('ends a transcript that ends with the model’s turn with a user note naming why it stopped', () => {
    const messages: MessageParam[] = [...base.messages, { role: 'assistant', content: 'A summary so far.' }];
    const { carried } = resumedRun({ task: 't', settings }, { state, messages }, previous, {}, 0);
    expect(carried.messages).toHaveLength(3);
    expect(carried.messages[2]).toMatchObject({ role: 'user' });
    expect(JSON.stringify(carried.messages[2].content)).toContain('stopped (the max_steps guard) and has now been resumed');
  });

  it('answers the tool calls a closed run left open before the note, and takes the task from the transcript when the input has none', () => {
    const messages: MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'count the stars' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'calculator', input: { expression: '1+1' } }] },
    ];
    const { task, carried } = resumedRun({ task: '', settings }, { state, messages }, { ...previous, status: 'terminated' } as AgentResult, {}, 0);
    expect(task).toBe('count the stars');
    const last = carried.messages.at(-1)!;
    expect(Array.isArray(last.content) && last.content.map((b) => b.type)).toEqual(['tool_result', 'text']);
  });
});
