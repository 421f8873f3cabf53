// A tool call completed from outside survives its worker: the worker is SIGKILLed while the call waits, no worker
// runs when `complete-tool` delivers the result 20 s later, and a new worker finishes the run with it.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { defaultSettings, getAgentResult, getStatus, startAgent } from '../../src/client/index.js';
import { reply, startScriptedModel, text, toolUse, type MessagesRequestBody } from '../../src/scripted/index.js';
import { CliProcess } from '../helpers/cli.js';
import { useTestEnv } from '../helpers/harness.js';
import { sigkill, startWorkerProcess } from '../helpers/worker-process.js';
import { testServerAddress } from '../helpers/test-server.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash-worker.mjs', import.meta.url));

const env = useTestEnv();

function cli(args: string[]) {
  const vars: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(vars)) if (/^(ANTHROPIC_|AGENT_|TEMPORAL_)/.test(key)) delete vars[key];
  return new CliProcess(args, { ...vars, TEMPORAL_ADDRESS: testServerAddress(), NO_COLOR: '1' }).exited;
}

describe('a call completed from outside', () => {
  it('completes the run with the result complete-tool gives it 20 s later, across a SIGKILL of the worker while it waited', { timeout: 120_000 }, async () => {
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
      // Longer than the 2 s heartbeat timeout many times over: a waiting call has none, so it is not retried.
      await new Promise((r) => setTimeout(r, 20_000));
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
