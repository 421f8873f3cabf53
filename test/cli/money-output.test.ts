// No cost is printed with more than 6 decimals: `run --json` / `result --json` and `status --json` of a scripted run
// whose summed prices leave a binary floating-point tail.
import { describe, expect, it } from 'vitest';
import { expectExit, jsonOf, toolTurn, useCli } from '../helpers/cli.js';

const { session, scriptFile } = useCli();
const LONG_DECIMALS = /"costUsd": ?-?\d+\.\d{7,}/;

describe('money in the CLI’s JSON', () => {
  it('result --json and status --json give costUsd to the micro-dollar', async () => {
    const { cli } = session();
    // 1,000 input and 300 output tokens, twice, at the default model's prices: a sum with a floating-point tail.
    const usage = { input_tokens: 1000, output_tokens: 300, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const script = await scriptFile([
      { ...toolTurn('6*7'), usage },
      { content: [{ type: 'text', text: '42' }], stop_reason: 'end_turn', usage: { ...usage, input_tokens: 1017 } },
    ]);
    const run = await cli(['run', '--scripted', '--json', 'what is 6*7?'], { AGENT_SCRIPT: script });
    expectExit(run, 0);
    const { workflowId, costUsd } = jsonOf<{ workflowId: string; costUsd: number }>(run);
    expect(costUsd).toBeGreaterThan(0);
    expect(run.stdout).not.toMatch(LONG_DECIMALS);
    const result = await cli(['result', workflowId, '--json']);
    expect(result.stdout).toContain('"costUsd"');
    expect(result.stdout).not.toMatch(LONG_DECIMALS);
    const status = await cli(['status', workflowId, '--json']);
    expect(status.stdout).toContain('"costUsd"');
    expect(status.stdout).not.toMatch(LONG_DECIMALS);
  });
});
