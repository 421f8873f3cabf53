// The pure parts of sub-agents: a child's settings within what its parent has left, its result as a tool_result,
// the roll-up of its usage, the delegation depth of a set of agents.
import { describe, expect, it } from 'vitest';
import { agentToolDefinition, childOutcome, childSettings, childTask, delegationDepth, newChildRecord, rollUp } from '../../src/core/sub-agents.js';
import { defaultSettings } from '../../src/core/settings.js';
import type { AgentResult, LoopState } from '../../src/core/types.js';

const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
const loop = (input: number): LoopState => ({ steps: 1, toolCalls: 0, usage: usage(input, 0), lastCallUsage: null, costUsd: null, toolCallHashes: {}, errorStreak: 0 });

describe('childSettings', () => {
  it('gives the child at most its share of what the parent has left, and a deadline no later than the parent', () => {
    const parent = defaultSettings({ budgetTokens: 10_000, model: 'claude-x', maxAgentDepth: 2 });
    const s = childSettings(parent, { description: 'd', budgetTokens: 50_000, deadlineMs: 60_000 }, loop(4_000), 1_000 + 30_000, 1_000, 1, 2);
    expect(s.budgetTokens).toBe(3_000);
    // A little earlier than the parent's (2 s of the 30 s left), so the parent hears the child's partial answer.
    expect(s.deadlineMs).toBe(28_000);
    // With 5 s left the margin is a fifth (1 s): room for the parent's next model turn on a loaded worker.
    expect(childSettings(parent, { description: 'd' }, loop(0), 1_000 + 5_000, 1_000, 1).deadlineMs).toBe(4_000);
    expect(s.model).toBe('claude-x');
  });

  it('offers a child at the depth limit no agent to delegate to', () => {
    const def = { description: 'd', tools: ['calculator', 'agent__other'] };
    expect(childSettings(defaultSettings(), def, loop(0), null, 0, 1).tools).toEqual(['calculator', 'agent__other']);
    expect(childSettings(defaultSettings(), def, loop(0), null, 0, 2).tools).toEqual(['calculator']);
  });
});

describe('childOutcome', () => {
  const result = (over: Partial<AgentResult>): AgentResult => ({
    workflowId: 'c', runId: 'r', status: 'completed', stopReason: 'end_turn', guard: null, text: 'the answer', partial: false,
    steps: 1, toolCalls: 0, usage: usage(1, 1), costUsd: null, error: null, ...over,
  });
  it('is the answer, a partial answer with a note naming the guard, or an error naming why', () => {
    expect(childOutcome('r', 'p/t', result({}))).toEqual({ content: 'the answer', isError: false });
    expect(childOutcome('r', 'p/t', result({ output: { n: 1 } })).content).toBe('{"n":1}');
    const stopped = childOutcome('r', 'p/t', result({ status: 'stopped', guard: 'max_steps', error: 'step cap reached' }));
    expect(stopped).toMatchObject({ isError: false });
    expect(stopped.content).toMatch(/^the answer\n\n\[Partial answer: the sub-agent "r" \(p\/t\) did not finish: it was stopped by its max_steps guard \(step cap reached\)\.\]$/);
    expect(childOutcome('r', 'p/t', result({ status: 'failed', error: 'HTTP 401' }))).toEqual({ content: 'Sub-agent "r" (p/t) failed: HTTP 401', isError: true });
  });
});

describe('rollUp', () => {
  it('adds what a child spent since its last report, so reports and the final result count once', () => {
    const parent = loop(100);
    const record = newChildRecord('c', 'r', 't');
    rollUp(parent, record, usage(50, 5), 0.01);
    rollUp(parent, record, usage(80, 10), 0.02);
    expect(parent.usage).toMatchObject({ input_tokens: 180, output_tokens: 10 });
    expect(parent.costUsd).toBeCloseTo(0.02);
  });
});

describe('delegationDepth', () => {
  it('counts the levels an agent brings, and finds a cycle', () => {
    expect(delegationDepth({ a: { tools: ['agent__b'] }, b: {} }, 'a')).toEqual({ levels: 2 });
    expect(delegationDepth({ a: { tools: ['agent__a'] } }, 'a')).toEqual({ cycle: ['a', 'a'] });
  });
});

describe('a sub-agent with its own input schema', () => {
  it('is offered { task } plus its properties, and its child gets them as JSON after the task', () => {
    const def = { description: 'd', inputSchema: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'] } };
    expect(agentToolDefinition('researcher', def)).toMatchObject({
      name: 'agent__researcher',
      input_schema: { type: 'object', properties: { task: { type: 'string' }, country: { type: 'string' } }, required: ['task', 'country'] },
    });
    expect(childTask({ task: 'population', country: 'France' })).toBe('population\n\nInput:\n{\n  "country": "France"\n}');
    expect(childTask({ task: 'just this' })).toBe('just this');
    expect(childTask({ country: 'France' })).toBeNull();
  });
});
