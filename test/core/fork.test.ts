// The pure part of a fork: which messages are the steps before N, the steering message, the carried state.
import { describe, expect, it } from 'vitest';
import { forkedRunState, ForkStepError, lastForkableStep, liveStepsOf, recordedSteps, toolCallsIn, transcriptBeforeStep, withSteeringMessage } from '../../src/core/fork.js';
import { defaultSettings } from '../../src/core/settings.js';
import type { MessageParam } from '../../src/core/types.js';

const call = (id: string): MessageParam => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'calculator', input: { expression: '1+1' } }] });
const result = (id: string): MessageParam => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: '2' }] });
const answer: MessageParam = { role: 'assistant', content: [{ type: 'text', text: 'done', citations: null }] };
const threeSteps: MessageParam[] = [{ role: 'user', content: 'task' }, call('t1'), result('t1'), call('t2'), result('t2'), answer];

describe('transcriptBeforeStep', () => {
  it('is the messages before the step-th reply: the task, and each earlier reply with its results, whole', () => {
    expect(transcriptBeforeStep(threeSteps, 1)).toEqual(threeSteps.slice(0, 1));
    expect(transcriptBeforeStep(threeSteps, 3)).toEqual(threeSteps.slice(0, 5));
    expect(toolCallsIn(transcriptBeforeStep(threeSteps, 3))).toBe(2);
  });

  it('refuses a step beyond the recorded ones, saying how many there are; a running run may fork at the step after its last results', () => {
    expect(recordedSteps(threeSteps)).toBe(3);
    expect(lastForkableStep(threeSteps)).toBe(3);
    expect(() => transcriptBeforeStep(threeSteps, 99, 'run r')).toThrow(new ForkStepError('run r has 3 recorded steps: --from-step must be 1 to 3 (got 99)'));
    expect(() => transcriptBeforeStep(threeSteps, 0, 'run r')).toThrow(ForkStepError);
    const running = threeSteps.slice(0, 3);
    expect(lastForkableStep(running)).toBe(2);
    expect(transcriptBeforeStep(running, 2)).toEqual(running);
    expect(() => transcriptBeforeStep([{ role: 'user', content: 'task' }], 1, 'run r')).toThrow('run r has 0 recorded steps: it cannot be forked yet (got 1)');
  });
});

describe('the fork carries', () => {
  it('the steering message after the last tool results, in the same user message', () => {
    const steered = withSteeringMessage(threeSteps.slice(0, 5), 'be brief');
    expect(steered).toHaveLength(5);
    expect(steered[4].content).toEqual([{ type: 'tool_result', tool_use_id: 't2', content: '2' }, { type: 'text', text: 'be brief' }]);
    expect(withSteeringMessage(threeSteps.slice(0, 5), undefined)).toEqual(threeSteps.slice(0, 5));
  });

  it('its steps counted up to N-1, nothing spent, fresh guards, a deadline from now, compactions of the prefix only', () => {
    const prefix = threeSteps.slice(0, 5);
    const state = forkedRunState(
      { clearedUpTo: 9, compactions: [{ messageIndex: 1, tokensBefore: 10, summaryTokens: 2 }, { messageIndex: 5, tokensBefore: 10, summaryTokens: 2 }] },
      prefix,
      3,
      60_000,
      1_000,
    );
    expect(state.loop).toMatchObject({ steps: 2, toolCalls: 0, costUsd: null, errorStreak: 0, toolCallHashes: {} });
    expect(state.loop.usage.input_tokens).toBe(0);
    expect(state).toMatchObject({ deadlineAt: 61_000, runsUsed: 0, clearedUpTo: 5, messages: prefix });
    expect(state.compactions).toEqual([{ messageIndex: 1, tokensBefore: 10, summaryTokens: 2 }]);
    expect(state.toolPolicies).toBeUndefined(); // recorded again by the fork, with its own settings
  });

  it("a fork of a fork allows the live steps its source allowed, not the source's reused ones", () => {
    const settings = defaultSettings({ maxSteps: 12 });
    expect(liveStepsOf(settings, undefined)).toBe(12);
    const origin = { workflowId: 'w', runId: 'r', step: 5, reusedToolCalls: 0, reusedUsage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, reusedCostUsd: null };
    expect(liveStepsOf(settings, origin)).toBe(8);
  });
});
