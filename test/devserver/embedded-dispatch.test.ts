// The embedded server's dynamic config (EMBEDDED_SERVER_DYNAMIC_CONFIG), seen by the server itself: a run's tool and
// model calls are handed to the worker in the reply to the workflow task that schedules them (eager activity
// execution), instead of through the server's transfer queue and matching (the CLI's defaults). The server counts each
// such start (`activity_eager_execution`, per task queue, in its Prometheus metrics). The test servers are started with
// that config (test/global-setup.ts).
import { describe, expect, it, vi } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { scheduledActivities, useTestEnv, withAgent } from '../helpers/harness.js';
import { testServerMetricsUrl } from '../helpers/test-server.js';

const env = useTestEnv();

/** The server's count of activities it started eagerly on `taskQueue` (its metrics spell a label value's other
 * characters as `_`). */
async function eagerStarts(taskQueue: string): Promise<number> {
  const metrics = await (await fetch(testServerMetricsUrl())).text();
  const label = `taskqueue="${taskQueue.replace(/[^A-Za-z0-9_]/g, '_')}"`;
  const line = metrics.split('\n').find((l) => l.startsWith('activity_eager_execution{') && l.includes(label));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('the embedded server', () => {
  it('starts every tool call and model call of a run eagerly, in the reply to the workflow task that schedules it', async () => {
    const script: Script = (_req, turn) => (turn < 3 ? reply([toolUse('calculator', { expression: `${turn}+1` })]) : reply([text('done')]));
    await withAgent(env, { script }, async ({ start, taskQueue }) => {
      const id = await start('add', { tools: ['calculator'] });
      expect((await getAgentResult(env.client, id)).status).toBe('completed');
      const activities = await scheduledActivities(env.client, id);
      expect(activities.filter((a) => a === 'runTool')).toHaveLength(3);
      expect(activities.filter((a) => a === 'callModel')).toHaveLength(4);
      // The server's metrics are reported about once a second.
      await vi.waitFor(async () => expect(await eagerStarts(taskQueue)).toBe(activities.length), { timeout: 10_000, interval: 250 });
    });
  });
});
