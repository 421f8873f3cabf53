// A tool call completed from outside survives its worker: the worker is SIGKILLed while the call waits, no worker
// runs when `complete-tool` delivers the result, and a new worker finishes the run with it. That the server would not
// retry the waiting call however long it waits is read from what it was told: the call has no heartbeat timeout.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { defaultSettings, getAgentResult, getStatus, startAgent } from '../../src/client/index.js';
import { reply, startScriptedModel, text, toolUse, type MessagesRequestBody } from '../../src/scripted/index.js';
import { cliCommand } from '../helpers/cli.js';
import { eventMs, useTestEnv } from '../helpers/harness.js';
import { sigkill, startWorkerProcess } from '../helpers/worker-process.js';
import { testServerAddress } from '../helpers/test-server.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash-worker.mjs', import.meta.url));

const env = useTestEnv();

const cli = cliCommand;

describe('a call completed from outside', () => {
  it('completes the run with the result complete-tool gives it while no worker runs, across a SIGKILL of the worker while it waited (the waiting call has no heartbeat timeout to be retried on)', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outside-'));
    const model = await startScriptedModel({
      script: (body: MessagesRequestBody) => {
        if (body.messages.length === 1) return reply([text('Deploying.'), toolUse('external_job', { job: 'deploy' })]);
        const [result] = body.messages[body.messages.length - 1].content as Array<{ content: unknown; is_error?: boolean }>;
        return reply([text(`The deployment reported: ${String(result.content)}`)]);
      },
    });
    const taskQueue = `outside-${randomUUID()}`;
    const workerEnv = { TEMPORAL_ADDRESS: testServerAddress(), AGENT_TASK_QUEUE: taskQueue, ANTHROPIC_BASE_URL: model.url, CRASH_DIR: dir };
    const workers = [await startWorkerProcess(WORKER, workerEnv)];
    try {
      const settings = defaultSettings({ tools: ['external_job'], heartbeatTimeoutMs: 2_000 });
      const { workflowId } = await startAgent(env.client, { task: 'deploy it', settings, taskQueue });
      const tokenFile = join(dir, 'token-deploy');
      await vi.waitFor(() => expect(existsSync(tokenFile)).toBe(true), { timeout: 30_000, interval: 100 });
      const token = readFileSync(tokenFile, 'utf8');
      await vi.waitFor(
        async () => expect((await getStatus(env.client, workflowId)).toolCalls[0]?.waitingForCompletionSince).toBeInstanceOf(Date),
        { timeout: 10_000, interval: 200 },
      );

      await sigkill(workers[0]);
      // The run's 2 s heartbeat timeout is on its model calls, but not on the waiting call: the server has no heartbeat
      // to miss, so it does not retry the call however long the completion takes (its start-to-close timeout aside).
      const scheduled = ((await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes ?? []);
      const byType = (name: string) => scheduled.filter((a) => a.activityType?.name === name);
      expect(byType('callModel').map((a) => eventMs(a.heartbeatTimeout))).toEqual([2_000]);
      const [waiting] = scheduled.filter((a) => a.activityType?.name !== 'callModel' && a.activityType?.name !== 'describeTools');
      expect(eventMs(waiting.heartbeatTimeout)).toBe(0);
      const status = await getStatus(env.client, workflowId);
      expect(status.toolCalls).toEqual([expect.objectContaining({ attempt: 1, state: 'started', waitingForCompletionSince: expect.any(Date) })]);

      // No worker runs now: the server takes the completion by itself.
      const completed = await cli(['complete-tool', token, '--result', 'deployed v2.3 to production']);
      expect(completed.code, completed.stderr).toBe(0);
      expect(completed.stdout).toMatch(new RegExp(`^completed tool call \\S+ of ${workflowId}\\n$`));

      workers.push(await startWorkerProcess(WORKER, workerEnv));
      const result = await getAgentResult(env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', text: 'The deployment reported: deployed v2.3 to production' });

      // Used, or not a token at all: one clear line, exit 2.
      const again = await cli(['complete-tool', token, '--result', 'again']);
      expect(again.code).toBe(2);
      expect(again.stderr.trim()).toMatch(/^error: tool call \S+ of \S+: the run has ended \(completed\), so the call can no longer be completed$/);
      const garbage = await cli(['complete-tool', 'dact1.bm9wZQ', '--result', 'x']);
      expect(garbage.code).toBe(2);
      expect(garbage.stderr).toMatch(/error: that is not a completion token/);
      const neither = await cli(['complete-tool', token]);
      expect(neither.code).toBe(2);
      expect(neither.stderr).toMatch(/give the result: --result TEXT, --result-file FILE or --error TEXT/);
    } finally {
      for (const w of workers) await sigkill(w);
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
