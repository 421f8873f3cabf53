import { describe, expect, it } from 'vitest';
import { compactPriority } from '../../src/core/priority.js';
import { priorityProblem } from '../../src/core/settings-check.js';
import { checkAgents } from '../../src/config/agents.js';

describe('priorityProblem', () => {
  it('takes priorities 1 to 5, a fairness key of up to 64 bytes and a weight of 0.001 to 1000', () => {
    expect(priorityProblem({ priorityKey: 1 })).toBeNull();
    expect(priorityProblem({ priorityKey: 5, fairnessKey: 't'.repeat(64), fairnessWeight: 1000 })).toBeNull();
    expect(priorityProblem({ fairnessKey: 'tenant-a', fairnessWeight: 0.001 })).toBeNull();
  });

  it('refuses 0, 6, 2.5 and "high", naming the range', () => {
    expect(priorityProblem({ priorityKey: 0 })).toBe('priority must be at least 1 (got 0)');
    expect(priorityProblem({ priorityKey: 6 })).toBe('priority must be at most 5 (got 6)');
    expect(priorityProblem({ priorityKey: 2.5 })).toBe('priority must be a whole number (got 2.5)');
    expect(priorityProblem({ priorityKey: 'high' as never })).toBe('priority must be a whole number (got "high")');
  });

  it('refuses an empty or oversized fairness key, a weight out of range, and a weight without a key', () => {
    expect(priorityProblem({ fairnessKey: ' ' })).toBe('fairnessKey must not be empty');
    expect(priorityProblem({ fairnessKey: 'é'.repeat(33) })).toBe('fairnessKey is 66 bytes long: at most 64');
    expect(priorityProblem({ fairnessKey: 'a', fairnessWeight: 0 })).toBe('fairnessWeight must be at least 0.001 (got 0)');
    expect(priorityProblem({ fairnessKey: 'a', fairnessWeight: 1001 })).toBe('fairnessWeight must be at most 1000 (got 1001)');
    expect(priorityProblem({ fairnessWeight: 2 })).toBe('fairnessWeight needs fairnessKey (the key it weighs)');
  });

  it('compactPriority leaves out unset fields, and is undefined when none is set', () => {
    expect(compactPriority({ priorityKey: 2, fairnessKey: undefined })).toEqual({ priorityKey: 2 });
    expect(compactPriority({})).toBeUndefined();
    expect(compactPriority(undefined)).toBeUndefined();
  });
});

describe("a sub-agent's priority in the config", () => {
  it('is checked at load time, one line naming the agent', () => {
    const known = () => true;
    expect(() => checkAgents({ a: { description: 'A.', priority: 3 } }, known)).not.toThrow();
    expect(() => checkAgents({ a: { description: 'A.', priority: 6 } }, known)).toThrow(/^agents\.a\.priority must be at most 5 \(got 6\)/);
    expect(() => checkAgents({ a: { description: 'A.', priority: 'high' } }, known)).toThrow(/agents\.a\.priority must be a whole number \(got "high"\)/);
  });
});
