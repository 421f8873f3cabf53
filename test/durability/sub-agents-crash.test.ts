// A worker SIGKILLed while a parent's two children run their tool calls: a new worker finishes the job, no child is
// started twice, and no completed child model or tool call is repeated (the calls in flight are retried).
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import type { MessageParam } from '../../src/core/types.js';
import { reply, startScriptedModel, text, toolUse, type Script } from '../../src/scripted/index.js';
import { useTestEnv } from '../helpers/harness.js';
import { sigkill, startWorkerProcess } from '../helpers/worker-process.js';
import { testServerAddress } from '../helpers/test-server.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash-worker.mjs', import.meta.url));

const env = useTestEnv();

/** The parent hands steps 1 and 2 to two stepper children at once; each child runs slow_step n, then answers. */
const script: Script = (req, turn) => {
  const system = typeof req.system === 'string' ? req.system : '';
  if (system.includes('stepper')) {
    const n = Number(/step (\d+)/.exec(JSON.stringify((req.messages as MessageParam[])[0].content))?.[1]);
    return turn === 0 ? reply([toolUse('slow_step', { n })]) : reply([text(`step ${n} is done`)]);
  }
  if (turn === 0) return reply([toolUse('agent__stepper', { task: 'do step 1' }), toolUse('agent__stepper', { task: 'do step 2' })]);
  return reply([text('Both steps are done.')]);
};

describe('a worker killed with SIGKILL while sub-agents run', () => {
  it('the job completes on a new worker; no child starts twice; no completed child call is repeated', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'crash-sub-'));
    const model = await startScriptedModel({ script });
    const taskQueue = `crash-sub-${randomUUID()}`;
    const workers: ChildProcess[] = [];
    const executions = () => (existsSync(join(dir, 'executions.log')) ? readFileSync(join(dir, 'executions.log'), 'utf8').trim().split('\n') : []);
    const startWorker = async () => {
      const w = await startWorkerProcess(WORKER, { TEMPORAL_ADDRESS: testServerAddress(), AGENT_TASK_QUEUE: taskQueue, ANTHROPIC_BASE_URL: model.url, CRASH_DIR: dir });
      workers.push(w);
      return w;
    };
    writeFileSync(join(dir, 'hold-tool-1'), '');
    writeFileSync(join(dir, 'hold-tool-2'), '');
    try {
      const first = await startWorker();
      const settings = defaultSettings({ tools: ['agent__stepper'], heartbeatTimeoutMs: 2_000 });
      const { workflowId: id } = await startAgent(env.client, { task: 'do two steps', settings, taskQueue });
      // Both children are in their tool calls, at once.
      await expect
        .poll(() => ['start 1', 'start 2'].every((s) => executions().some((l) => l.startsWith(s))), { timeout: 20_000, message: 'both steps start' })
        .toBe(true);
      await sigkill(first);
      rmSync(join(dir, 'hold-tool-1'));
      rmSync(join(dir, 'hold-tool-2'));
      await startWorker();
      const result = await getAgentResult(env.client, id);
      expect(result.status).toBe('completed');
      expect(result.text).toBe('Both steps are done.');

      // Two children, each started once.
      const history = await env.client.workflow.getHandle(id).fetchHistory();
      const started = (history.events ?? []).flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId ?? []);
      expect(started.sort()).toEqual([`${id}/toolu_0_0`, `${id}/toolu_0_1`]);
      for (const child of started) {
        const c = await getAgentResult(env.client, child);
        expect(c).toMatchObject({ status: 'completed', toolCalls: 1 });
        expect(c.runId).toBe((await env.client.workflow.getHandle(child).describe()).runId);
      }
      // Each child's first model call completed before the kill and was not asked again; each step finished once
      // (the calls in flight at the kill were retried, with one idempotency key each).
      const stepperTurns = model.requests
        .filter((r) => r.status === 200 && JSON.stringify((r.body as { system?: unknown }).system ?? '').includes('stepper'))
        .map((r) => r.turn);
      expect(stepperTurns.sort()).toEqual([0, 0, 1, 1]);
      const done = executions().filter((l) => l.startsWith('done'));
      expect(done.map((l) => l.split(' ')[1]).sort()).toEqual(['1', '2']);
      for (const n of ['1', '2']) {
        const keys = new Set(executions().filter((l) => l.startsWith(`start ${n}`)).map((l) => l.split(' ')[2]));
        expect(keys.size).toBe(1);
      }
    } finally {
      for (const w of workers) await sigkill(w);
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
