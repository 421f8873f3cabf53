// Prompt caching end to end: the cache marker the model activity adds makes each turn read the earlier
// turns from the cache (the scripted model accounts for it as the API does), and usage and cost count it.
import { describe, expect, it } from 'vitest';
import { totalTokens } from '../../src/core/transcript.js';
import { reply, text, toolUse, type MessagesRequestBody } from '../../src/scripted/index.js';
import { useSharedAgent, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();
// One worker for all the file's tests.
const agents = useSharedAgent(env);

const job = (_req: MessagesRequestBody, turn: number) =>
  turn < 4 ? reply([text(`Turn ${turn}: ${'n'.repeat(8000)}`), toolUse('calculator', { expression: `${turn} * 3` })]) : reply([text('done')]);

describe('prompt caching', () => {
  it('on by default: later turns read earlier ones from the cache, and the same job costs less than without it', async () => {
    const cached = await agents.with({ script: job }, ({ run }) => run('cached job', { model: 'claude-sonnet-5-5' }));
    const uncached = await agents.with({ script: job }, async ({ run, model }) => {
      const result = await run('cached job', { model: 'claude-sonnet-5-5', promptCaching: false });
      expect(JSON.stringify(model.requests.map((r) => r.body))).not.toContain('cache_control');
      return result;
    });
    expect(cached.status).toBe('completed');
    expect(cached.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(cached.usage.cache_read_input_tokens).toBeGreaterThan(cached.usage.cache_creation_input_tokens);
    expect(uncached.usage.cache_creation_input_tokens).toBe(0);
    expect(uncached.usage.cache_read_input_tokens).toBe(0);
    // The same prompts, split differently: most of the cached run's prompt tokens are cache reads, billed at a
    // small fraction of input (the output, the same in both runs, dominates the cost of this job).
    expect(totalTokens(cached.usage)).toBeCloseTo(totalTokens(uncached.usage), -2);
    expect(cached.usage.input_tokens).toBeLessThan(uncached.usage.input_tokens / 2);
    expect(cached.costUsd!).toBeLessThan(uncached.costUsd!);
  });
});
