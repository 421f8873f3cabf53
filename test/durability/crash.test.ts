// Kill a real worker process with SIGKILL at several points of a multi-turn run, start another, and check
// the run finishes with the transcript an uninterrupted run produces, repeating no completed call.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings, getAgentResult, getTranscript, startAgent } from '../../src/client/index.js';
import type { AgentSettings } from '../../src/core/types.js';
import { reply, startScriptedModel, text, toolUse, type ScriptedModel, type ScriptTurn } from '../../src/scripted/index.js';
import { openTestEnv, withWorkflowTaskTimeout, type TestEnv } from '../helpers/harness.js';
import { sigkill, startWorkerProcess } from '../helpers/worker-process.js';
import { testServerAddress } from '../helpers/test-server.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash-worker.mjs', import.meta.url));
// Short, so a killed worker's in-flight call is retried within seconds (the default is 30 s).
const HEARTBEAT_TIMEOUT_MS = 2_000;
const TURNS = 3;
const WORKFLOW_TASK_TIMEOUT_S = 4;

let env: TestEnv;
beforeAll(async () => {
  env = await openTestEnv();
});
afterAll(async () => {
  await env?.close();
});

/** Turn k < TURNS asks for slow_step k; then the answer. `hold` turns wait for the test. */
function script(holdTurn?: number): ScriptTurn[] {
  const turns: ScriptTurn[] = [];
  for (let k = 0; k < TURNS; k++) {
    turns.push({ ...reply([text(`Doing step ${k}.`), toolUse('slow_step', { n: k })]), hold: k === holdTurn });
  }
  turns.push(reply([text('All steps are done.')]));
  return turns;
}

interface Scenario {
  dir: string;
  taskQueue: string;
  model: ScriptedModel;
  workers: ChildProcess[];
  executions(): string[];
}

async function scenario(holdTurn?: number): Promise<Scenario> {
  const dir = mkdtempSync(join(tmpdir(), 'crash-'));
  const model = await startScriptedModel({ script: script(holdTurn) });
  return {
    dir,
    taskQueue: `crash-${randomUUID()}`,
    model,
    workers: [],
    executions: () => (existsSync(join(dir, 'executions.log')) ? readFileSync(join(dir, 'executions.log'), 'utf8').trim().split('\n') : []),
  };
}

async function startWorker(s: Scenario): Promise<ChildProcess> {
  const child = await startWorkerProcess(WORKER, {
    TEMPORAL_ADDRESS: testServerAddress(),
    AGENT_TASK_QUEUE: s.taskQueue,
    ANTHROPIC_BASE_URL: s.model.url,
    CRASH_DIR: s.dir,
  });
  s.workers.push(child);
  return child;
}

const kill = sigkill;

async function cleanup(s: Scenario): Promise<void> {
  for (const w of s.workers) await sigkill(w);
  await s.model.close();
  rmSync(s.dir, { recursive: true, force: true });
}

async function start(s: Scenario, more: Partial<AgentSettings> = {}): Promise<string> {
  const settings = defaultSettings({ tools: ['slow_step'], heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS, ...more });
  // With local model calls a killed worker's call is made again once its workflow task times out: short, as the
  // heartbeat timeout is (the server's default is 10 s).
  const client = more.localModelCalls ? withWorkflowTaskTimeout(env.client, WORKFLOW_TASK_TIMEOUT_S) : env.client;
  const started = await startAgent(client, { task: 'do three steps', settings, taskQueue: s.taskQueue });
  return started.workflowId;
}

/** The transcript of the same script run without interruption: what every crashed run must end with. */
let reference: unknown[] | undefined;
async function uninterruptedTranscript(): Promise<unknown[]> {
  if (reference) return reference;
  const s = await scenario();
  try {
    await startWorker(s);
    const id = await start(s);
    expect((await getAgentResult(env.client, id)).status).toBe('completed');
    reference = await getTranscript(env.client, id);
    return reference;
  } finally {
    await cleanup(s);
  }
}

async function activityEvents(workflowId: string) {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  return {
    completedTools: events.filter((e) => e.activityTaskCompletedEventAttributes).length,
    scheduled: events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => e.activityTaskScheduledEventAttributes!.activityType!.name),
  };
}

describe('a worker killed with SIGKILL', () => {
  it('during a model call: a new worker retries that call once the heartbeat times out and finishes the run', async () => {
    const expected = await uninterruptedTranscript();
    const s = await scenario(1);
    try {
      const first = await startWorker(s);
      const id = await start(s);
      await s.model.waitForHeld(1, 20_000); // the model call of turn 1 is in flight
      await kill(first);
      expect(s.executions().filter((l) => l.startsWith('done'))).toHaveLength(1); // only step 0 ran
      s.model.release(1);
      const second = await startWorker(s);
      const result = await getAgentResult(env.client, id);
      expect(result.status).toBe('completed');
      expect(result.steps).toBe(TURNS + 1);
      expect(await getTranscript(env.client, id)).toEqual(expected);
      // The new worker started with an empty cache: its first call read the transcript by query (all three
      // messages), and sent exactly the request the killed attempt had sent.
      await expect.poll(() => existsSync(join(s.dir, `stats-${second.pid}.json`)), { timeout: 20_000, message: 'the new worker reports its cache stats' }).toBe(true);
      const stats = JSON.parse(readFileSync(join(s.dir, `stats-${second.pid}.json`), 'utf8'));
      expect(stats.queries).toBeGreaterThanOrEqual(1);
      expect(stats.queriedMessages).toBeGreaterThanOrEqual(3);
      const [killed, retried] = s.model.requests.filter((r) => r.turn === 1);
      expect(killed.status).toBe(499);
      expect(retried.body).toEqual(killed.body);
      // Each step ran once: no completed tool call was repeated.
      expect(s.executions().filter((l) => l.startsWith('done')).map((l) => l.split(' ')[1])).toEqual(['0', '1', '2']);
      // Turn 1 was asked twice (the killed attempt, then the retry); every other turn once.
      const answeredTurns = s.model.requests.filter((r) => r.status === 200).map((r) => r.turn);
      expect(answeredTurns).toEqual([0, 1, 2, 3]);
      expect(s.model.requests.filter((r) => r.turn === 1)).toHaveLength(2);
    } finally {
      await cleanup(s);
    }
  });

  it('during a local model call (localModelCalls): once its workflow task times out, a new worker makes the call again and finishes the run', async () => {
    const expected = await uninterruptedTranscript();
    const s = await scenario(1);
    try {
      const first = await startWorker(s);
      const id = await start(s, { localModelCalls: true });
      await s.model.waitForHeld(1, 20_000); // the model call of turn 1 is in flight, inside a workflow task
      await kill(first);
      expect(s.executions().filter((l) => l.startsWith('done'))).toHaveLength(1); // only step 0 ran
      s.model.release(1);
      await startWorker(s);
      const result = await getAgentResult(env.client, id);
      expect(result).toMatchObject({ status: 'completed', steps: TURNS + 1 });
      expect(await getTranscript(env.client, id)).toEqual(expected);
      // The killed call's result was never recorded: the new worker replayed the run and sent the same request again.
      const [killed, retried] = s.model.requests.filter((r) => r.turn === 1);
      expect(killed.status).toBe(499);
      expect(retried.body).toEqual(killed.body);
      expect(s.model.requests.filter((r) => r.status === 200).map((r) => r.turn)).toEqual([0, 1, 2, 3]);
      expect(s.executions().filter((l) => l.startsWith('done')).map((l) => l.split(' ')[1])).toEqual(['0', '1', '2']);
      expect((await activityEvents(id)).scheduled).toEqual(['runTool', 'runTool', 'runTool']);
    } finally {
      await cleanup(s);
    }
  });

  it('during a tool call: the in-flight tool is retried on the new worker with the same idempotency key', async () => {
    const expected = await uninterruptedTranscript();
    const s = await scenario();
    writeFileSync(join(s.dir, 'hold-tool-1'), '');
    try {
      const first = await startWorker(s);
      const id = await start(s);
      await expect.poll(() => s.executions().some((l) => l.startsWith('start 1')), { timeout: 20_000, message: 'step 1 starts' }).toBe(true);
      await kill(first);
      expect(s.executions().filter((l) => l.startsWith('done')).map((l) => l.split(' ')[1])).toEqual(['0']);
      rmSync(join(s.dir, 'hold-tool-1'));
      await startWorker(s);
      const result = await getAgentResult(env.client, id);
      expect(result.status).toBe('completed');
      expect(await getTranscript(env.client, id)).toEqual(expected);
      const runs = s.executions();
      // Step 1 started twice (at-least-once for the call in flight), with one idempotency key; it finished once.
      const starts1 = runs.filter((l) => l.startsWith('start 1'));
      expect(starts1).toHaveLength(2);
      expect(new Set(starts1.map((l) => l.split(' ')[2])).size).toBe(1);
      expect(runs.filter((l) => l.startsWith('done')).map((l) => l.split(' ')[1])).toEqual(['0', '1', '2']);
      // Every model turn was answered exactly once.
      expect(s.model.requests.filter((r) => r.status === 200).map((r) => r.turn)).toEqual([0, 1, 2, 3]);
    } finally {
      await cleanup(s);
    }
  });

  it('between turns: nothing that completed is run again', async () => {
    const expected = await uninterruptedTranscript();
    const s = await scenario(2);
    try {
      const first = await startWorker(s);
      const id = await start(s);
      // Step 1's result is in history (the turn is complete) before the kill: two turns (the tools were described in
      // a local activity).
      await expect.poll(async () => (await activityEvents(id)).completedTools, { timeout: 20_000, message: 'step 1 is recorded' }).toBeGreaterThanOrEqual(4);
      await kill(first);
      const before = await activityEvents(id);
      expect(before.scheduled.slice(0, 4)).toEqual(['callModel', 'runTool', 'callModel', 'runTool']);
      s.model.release(2);
      await startWorker(s);
      const result = await getAgentResult(env.client, id);
      expect(result.status).toBe('completed');
      expect(await getTranscript(env.client, id)).toEqual(expected);
      expect(s.executions().filter((l) => l.startsWith('start')).map((l) => l.split(' ')[1])).toEqual(['0', '1', '2']);
      expect(s.model.requests.filter((r) => r.status === 200).map((r) => r.turn)).toEqual([0, 1, 2, 3]);
    } finally {
      await cleanup(s);
    }
  });
});
