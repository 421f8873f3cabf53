import { describe, expect, it } from 'vitest';
import { compactPriority, priorityProblem } from '../../src/core/priority.js';
import { checkAgents } from '../../src/config/agents.js';

describe('priorityProblem', () => {
  it('takes priorities 1 to 5, a fairness key of up to 64 bytes and a weight of 0.001 to 1000', () => {
    expect(priorityProblem({ priorityKey: 1 })).toBeNull();
    expect(priorityProblem({ priorityKey: 5, fairnessKey: 't'.repeat(64), fairnessWeight: 1000 })).toBeNull();
    expect(priorityProblem({ fairnessKey: 'tenant-a', fairnessWeight: 0.001 })).toBeNull();
  });

  it('refuses 0, 6, 2.5 and "high", naming the range', () => {
    for (const bad of [0, 6, 2.5, 'high']) {
      expect(priorityProblem({ priorityKey: bad as number })).toMatch(/is not a whole number from 1 \(first\) to 5 \(last\)/);
    }
  });

  it('refuses an empty or oversized fairness key, a weight out of range, and a weight without a key', () => {
    expect(priorityProblem({ fairnessKey: ' ' })).toMatch(/fairness key is empty/);
    expect(priorityProblem({ fairnessKey: 'é'.repeat(33) })).toMatch(/66 bytes long: at most 64/);
    expect(priorityProblem({ fairnessKey: 'a', fairnessWeight: 0 })).toMatch(/from 0.001 to 1000/);
    expect(priorityProblem({ fairnessWeight: 2 })).toMatch(/needs a fairness key/);
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
    expect(() => checkAgents({ a: { description: 'A.', priority: 6 } }, known)).toThrow(/^agents\.a\.priority: priority 6 is not a whole number from 1/);
    expect(() => checkAgents({ a: { description: 'A.', priority: 'high' } }, known)).toThrow(/agents\.a\.priority: priority "high"/);
  });
});
