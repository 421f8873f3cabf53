// Batch mode through a worker SIGKILL: 20 runs waiting for their Message Batch lose the worker that submitted it; a new
// worker (knowing nothing of the batch) takes over from the batch id in each run's history. Every run completes, and
// no request goes into a batch twice.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { reply, startScriptedModel, text, toolUse, type ScriptedModel } from '../../src/scripted/index.js';
import { useTestEnv } from '../helpers/harness.js';
import { sigkill, startWorkerProcess } from '../helpers/worker-process.js';
import { testServerAddress } from '../helpers/test-server.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash-worker.mjs', import.meta.url));
const RUNS = 20;
const env = useTestEnv();

let model: ScriptedModel | undefined;
const workers: ChildProcess[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const w of workers.splice(0)) await sigkill(w);
  await model?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('batch mode: 20 runs on one worker, killed with SIGKILL', () => {
  it('gathers their first calls into at most 3 batches; killed while they wait, a new worker finishes every run from the batch ids in history, sending no request twice', async () => {
    // Turn 0 is held: its batch stays in progress until the test releases it, after the kill.
    model = await startScriptedModel({
      script: [{ ...reply([text('Computing.'), toolUse('calculator', { expression: '6 * 7' })]), hold: true }, reply([text('It is 42.')])],
    });
    dir = mkdtempSync(join(tmpdir(), 'batch-crash-'));
    const taskQueue = `batch-crash-${randomUUID()}`;
    const start = () =>
      startWorkerProcess(WORKER, {
        TEMPORAL_ADDRESS: testServerAddress(),
        AGENT_TASK_QUEUE: taskQueue,
        ANTHROPIC_BASE_URL: model!.url,
        CRASH_DIR: dir!,
        // The default window (2 s): the runs' calls come within it.
        MODEL_BATCHES: JSON.stringify({ windowMs: 2_000, pollMs: 200, maxPollMs: 500 }),
      });
    const settings = defaultSettings({ tools: ['calculator'], modelCalls: 'batch' });
    const ids = await Promise.all(
      Array.from({ length: RUNS }, async () => (await startAgent(env.client, { task: 'six times seven', settings, taskQueue })).workflowId),
    );
    // One worker for all of them, started once they wait in its queue.
    workers.push(await start());
    // Every run has its batch in history (the submit activity completed) before the worker dies.
    await vi.waitFor(
      async () => {
        for (const id of ids) {
          const events = (await env.client.workflow.getHandle(id).fetchHistory()).events ?? [];
          expect(events.some((e) => e.activityTaskCompletedEventAttributes)).toBe(true);
        }
      },
      { timeout: 60_000, interval: 200 },
    );
    await sigkill(workers[0]);
    workers.push(await start());
    model.release();
    const results = await Promise.all(ids.map((id) => getAgentResult(env.client, id)));
    expect(results.map((r) => [r.status, r.text])).toEqual(ids.map(() => ['completed', 'It is 42.']));
    expect(model.requests).toHaveLength(0); // no direct call
    // Each run's two calls went into a batch once each: RUNS first calls and RUNS second calls, no custom id twice.
    const requests = model.batches.flatMap((b) => b.requests);
    const customIds = requests.map((r) => r.customId);
    expect(new Set(customIds).size).toBe(customIds.length);
    expect(requests.filter((r) => r.turn === 0)).toHaveLength(RUNS);
    expect(requests.filter((r) => r.turn === 1)).toHaveLength(RUNS);
    expect(requests.every((r) => r.result === 'succeeded')).toBe(true);
    // The first calls of 20 runs went out in at most 3 batches; each batch's results were downloaded once, not once
    // per run (the new worker shares one download between the runs that poll it).
    expect(model.batches.filter((b) => b.requests.some((r) => r.turn === 0)).length).toBeLessThanOrEqual(3);
    expect(model.batches.map((b) => b.resultDownloads)).toEqual(model.batches.map(() => 1));
  });
});
