import { describe, expect, it } from 'vitest';
import { toolCallPolicy } from '../../src/tools/policy.js';
import { createToolRegistry } from '../../src/tools/registry.js';
import { defineTool } from '../../src/tools/types.js';

const tool = (extra: Record<string, unknown>) =>
  defineTool({
    name: 'slow_build',
    description: 'Builds.',
    inputSchema: { type: 'object', properties: {} },
    execute: async () => 'built',
    ...extra,
  });

describe('toolCallPolicy', () => {
  it('reads durations as strings or milliseconds, and the retry policy, into milliseconds', () => {
    expect(
      toolCallPolicy('slow_build', {
        timeout: '2h',
        heartbeatTimeout: 30_000,
        retry: { maximumAttempts: 1, initialInterval: '5s', backoffCoefficient: 1.5, maximumInterval: '1m' },
      }),
    ).toEqual({
      timeoutMs: 7_200_000,
      heartbeatTimeoutMs: 30_000,
      retry: { maximumAttempts: 1, initialIntervalMs: 5_000, backoffCoefficient: 1.5, maximumIntervalMs: 60_000 },
    });
    expect(toolCallPolicy('x', {})).toBeUndefined();
    expect(toolCallPolicy('x', { completesLater: true, timeout: '1d' })).toEqual({ completesLater: true, timeoutMs: 86_400_000 });
    expect(toolCallPolicy('x', { fast: true, timeout: '5s' })).toEqual({ fast: true, timeoutMs: 5_000 });
    expect(toolCallPolicy('x', { fast: false })).toBeUndefined();
  });

  it.each([
    [{ timeout: '2x' }, /Tool "slow_build": timeout: invalid duration "2x"/],
    [{ timeout: 0 }, /Tool "slow_build": timeout must be at least 1 ms/],
    [{ timeout: '-5m' }, /Tool "slow_build": timeout: invalid duration "-5m"/],
    [{ timeout: -1 }, /Tool "slow_build": timeout must be at least 1 ms/],
    [{ heartbeatTimeout: '100ms' }, /Tool "slow_build": heartbeatTimeout must be at least 1000 ms/],
    [{ retry: { maximumAttempts: 0 } }, /Tool "slow_build": retry\.maximumAttempts must be a whole number of at least 1 \(got 0\)/],
    [{ retry: { maximumAttempts: 2.5 } }, /retry\.maximumAttempts must be a whole number/],
    [{ retry: { attempts: 2 } }, /Tool "slow_build": retry has unknown field attempts/],
    [{ retry: { backoffCoefficient: 0.5 } }, /retry\.backoffCoefficient must be a number of at least 1/],
    [{ completesLater: true, heartbeatTimeout: '10s' }, /heartbeatTimeout cannot be set with completesLater/],
    [{ fast: 'yes' }, /Tool "slow_build": fast must be true or false/],
    [{ fast: true, completesLater: true }, /Tool "slow_build": fast cannot be set with completesLater/],
    [{ fast: true, heartbeatTimeout: '10s' }, /Tool "slow_build": heartbeatTimeout cannot be set with fast/],
  ])('refuses %j with one line naming the tool and the field', (extra, message) => {
    expect(() => toolCallPolicy('slow_build', extra as never)).toThrow(message);
  });

  it('is checked when a registry is made, so a bad policy fails the worker at startup, not a call', () => {
    expect(() => createToolRegistry([tool({ timeout: 'soon' })])).toThrow(/Tool "slow_build": timeout: invalid duration "soon"/);
    expect(() => createToolRegistry([tool({ timeout: '10m' })])).not.toThrow();
  });
});
