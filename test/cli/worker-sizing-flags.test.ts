// The worker's warning when its workflow cache is full: more runs are live than it holds, so some turns are
// replays. A real worker with a 2-run cache and three runs waiting on a slow model; the same worker with room for
// them says nothing. Real dev server, the scripted model through the real SDK.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { warnWhenCacheFull } from '../../src/cli/worker-sizing-flags.js';
import { reply, startScriptedModel, text, toolUse } from '../../src/scripted/index.js';
import { createAgentWorker } from '../../src/worker/worker.js';
import { useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();

/** Three runs at once on a worker caching `maxCachedWorkflows` runs; what warnWhenCacheFull logged meanwhile. */
async function warningsWith(maxCachedWorkflows: number): Promise<string[]> {
  const model = await startScriptedModel({
    // Slow model calls: all three runs are live (and cached, when they fit) while their calls wait.
    script: (_req, turn) => ({ ...(turn < 2 ? reply([toolUse('calculator', { expression: '1+1' })]) : reply([text('done')])), delayMs: 1_500 }),
  });
  const taskQueue = `cache-full-${randomUUID()}`;
  const lines: string[] = [];
  try {
    const { worker } = await createAgentWorker({
      connection: env.connection,
      client: env.client,
      taskQueue,
      model: { apiKey: 'test-key', baseURL: model.url },
      maxCachedWorkflows,
    });
    const stop = warnWhenCacheFull(worker, (line) => lines.push(line), 100);
    const results = await worker.runUntil(async () => {
      const ids = await Promise.all(
        ['a', 'b', 'c'].map(async (task) => (await startAgent(env.client, { task, settings: defaultSettings({ tools: ['calculator'] }), taskQueue })).workflowId),
      );
      return Promise.all(ids.map((id) => getAgentResult(env.client, id)));
    });
    stop();
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    return lines;
  } finally {
    await model.close();
  }
}

describe('the cache-full warning', () => {
  it('a worker caching 2 runs while 3 are live says so once (not every check), naming the flag to raise', async () => {
    const lines = await warningsWith(2);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warning: the workflow cache is full \(2 runs\): runs beyond it are replayed .*raise --max-cached-workflows/);
  });

  it('a worker with room for every live run says nothing', async () => {
    expect(await warningsWith(10)).toEqual([]);
  });
});
