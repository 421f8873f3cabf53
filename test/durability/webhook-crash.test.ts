// Webhook delivery across a worker crash: the worker delivering run.completed is killed with SIGKILL while the
// receiver holds the request; a new worker delivers the event once more, with the same id, and no more.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { reply, startScriptedModel, text } from '../../src/scripted/index.js';
import { verifyWebhook } from '../../src/webhooks/signature.js';
import { eventually, openTestEnv, scheduledActivities, type TestEnv } from '../helpers/harness.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { sigkill, startWorkerProcess } from '../helpers/worker-process.js';
import { testServerAddress } from '../helpers/test-server.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash-worker.mjs', import.meta.url));
const SECRET = 'crash-webhook-secret';

let env: TestEnv;
beforeAll(async () => {
  env = await openTestEnv();
});
afterAll(async () => {
  await env?.close();
});

describe('a worker killed with SIGKILL during a webhook delivery', () => {
  it('delivers the event once more at most, with the same id and a valid signature', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhook-crash-'));
    const model = await startScriptedModel({ script: [reply([text('Done.')])] });
    // The first delivery is held (the worker dies while it waits); later ones are answered.
    const receiver = await startWebhookReceiver((n) => (n === 1 ? 'hold' : 200));
    const taskQueue = `webhook-crash-${randomUUID()}`;
    const workers: ChildProcess[] = [];
    const startWorker = async () => {
      const w = await startWorkerProcess(WORKER, {
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_TASK_QUEUE: taskQueue,
        ANTHROPIC_BASE_URL: model.url,
        CRASH_DIR: dir,
        DURABLE_AGENT_WEBHOOK_SECRET: SECRET,
      });
      workers.push(w);
      return w;
    };
    try {
      const first = await startWorker();
      // A short heartbeat timeout: the killed worker's delivery is retried within seconds. Not shorter: on a loaded
      // machine a live worker's heartbeat can come 2 s late, and that timeout would be one more (legitimate) retry.
      const settings = defaultSettings({ tools: ['calculator'], heartbeatTimeoutMs: 5_000, webhooks: [receiver.url] });
      const { workflowId } = await startAgent(env.client, { task: 'say done', settings, taskQueue });
      await eventually(async () => receiver.deliveries.length, (n) => n === 1, 20_000);
      await sigkill(first);
      receiver.release(); // too late: the worker that sent it is gone
      await startWorker();
      const result = await getAgentResult(env.client, workflowId);
      expect(result.status).toBe('completed');
      expect(receiver.deliveries).toHaveLength(2);
      const events = receiver.deliveries.map((d) => verifyWebhook({ secret: SECRET, body: d.body, headers: d.headers }));
      expect(events.map((e) => e.type)).toEqual(['run.completed', 'run.completed']);
      expect(events[1].id).toBe(events[0].id);
      expect(await scheduledActivities(env.client, workflowId)).toEqual(['callModel', 'deliverWebhook']);
    } finally {
      for (const w of workers) await sigkill(w);
      await receiver.close();
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
