// Money is printed to the micro-dollar: prices add up in binary floating point (0.000912 + 0.0006 is
// 0.0015119999999999999), and no output (result, status, watch, SSE, GET /v1/runs/{id}) shows such a tail. The run's
// own total keeps every digit: its budget guard compares it.
import { describe, expect, it } from 'vitest';
import { roundUsd, withRoundedCosts } from '../../src/core/pricing.js';
import { agentResult } from '../../src/core/result.js';
import { ZERO_USAGE } from '../../src/core/transcript.js';

const sum = 0.000912 + 0.0006; // 0.0015119999999999999

describe('money to the micro-dollar', () => {
  it('roundUsd keeps at most 6 decimals, and null as null', () => {
    expect(String(sum)).toBe('0.0015119999999999999');
    expect(roundUsd(sum)).toBe(0.001512);
    expect(roundUsd(0.0000004)).toBe(0);
    expect(roundUsd(12.3456785)).toBe(12.345679);
    expect(roundUsd(null)).toBeNull();
  });

  it('a result carries its cost rounded', () => {
    const result = agentResult({
      workflowId: 'w',
      runId: 'r',
      status: 'completed',
      stopReason: 'end_turn',
      guard: null,
      text: '42',
      steps: 2,
      toolCalls: 1,
      usage: { ...ZERO_USAGE },
      costUsd: sum,
      error: null,
      runsUsed: 1,
    });
    expect(JSON.stringify(result)).toContain('"costUsd":0.001512,');
  });

  it('a status view has its own and its children’s costs rounded', () => {
    const view = withRoundedCosts({ costUsd: sum, steps: 3, children: [{ workflowId: 'w/toolu_0_0', costUsd: sum * 2 }, { workflowId: 'w/toolu_0_1', costUsd: null }] });
    expect(view).toEqual({ costUsd: 0.001512, steps: 3, children: [{ workflowId: 'w/toolu_0_0', costUsd: 0.003024 }, { workflowId: 'w/toolu_0_1', costUsd: null }] });
  });
});
