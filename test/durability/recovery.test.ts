// How a run recovers when its worker dies: from a SIGKILL to the next completed step on another worker, with the
// DEFAULT timeouts (heartbeat, sticky queue, workflow task), read from the history: which timeout handed the work
// on. How fast (the target is 15 s) is a figure, printed here and not asserted: a timed assertion belongs in
// bench/; the policies that bound it are in src/core/policies.ts and docs/durability.md's "Recovery time" table.
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { approveToolCall, defaultSettings, getAgentResult, getStatus, startAgent } from '../../src/client/index.js';
import { reply, startScriptedModel, text, toolUse, type ScriptedModel } from '../../src/scripted/index.js';
import { temporal } from '@temporalio/proto';
import { eventKinds, openTestEnv, type TestEnv } from '../helpers/harness.js';
import { sigkill, startWorkerProcess } from '../helpers/worker-process.js';
import { testServerAddress } from '../helpers/test-server.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash-worker.mjs', import.meta.url));
const TIMEOUT_TYPE = temporal.api.enums.v1.TimeoutType;

let env: TestEnv;
beforeAll(async () => {
  env = await openTestEnv();
});
afterAll(async () => {
  await env?.close();
});

interface World {
  dir: string;
  taskQueue: string;
  model: ScriptedModel;
  workers: ChildProcess[];
}

async function world(holdTurn?: number): Promise<World> {
  const script = [
    { ...reply([text('Step 0.'), toolUse('slow_step', { n: 0 })]), hold: holdTurn === 0 },
    { ...reply([text('Step 1.'), toolUse('slow_step', { n: 1 })]), hold: holdTurn === 1 },
    reply([text('Both steps are done.')]),
  ];
  return {
    dir: mkdtempSync(join(tmpdir(), 'recovery-')),
    taskQueue: `recovery-${randomUUID()}`,
    model: await startScriptedModel({ script }),
    workers: [],
  };
}

async function startWorker(w: World): Promise<ChildProcess> {
  const child = await startWorkerProcess(WORKER, {
    TEMPORAL_ADDRESS: testServerAddress(),
    AGENT_TASK_QUEUE: w.taskQueue,
    ANTHROPIC_BASE_URL: w.model.url,
    CRASH_DIR: w.dir,
  });
  w.workers.push(child);
  return child;
}

/** Kills the worker and returns when it is gone (the moment recovery is measured from). */
async function killNow(child: ChildProcess): Promise<number> {
  await sigkill(child);
  return Date.now();
}

async function completedActivities(workflowId: string): Promise<number> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).filter((e) => e.activityTaskCompletedEventAttributes).length;
}

async function cleanup(w: World): Promise<void> {
  for (const child of w.workers) await sigkill(child);
  await w.model.close();
  rmSync(w.dir, { recursive: true, force: true });
}

describe('recovery from a worker SIGKILL, with the default timeouts', () => {
  it('a model call in flight runs again and completes on the other worker, handed on by the default heartbeat timeout', async () => {
    const w = await world(1);
    try {
      const doomed = await startWorker(w);
      const { workflowId } = await startAgent(env.client, { task: 'two steps', settings: defaultSettings({ tools: ['slow_step'] }), taskQueue: w.taskQueue });
      await w.model.waitForHeld(1, 30_000); // turn 1's model call is in flight on the only worker
      await startWorker(w);
      const before = await completedActivities(workflowId);
      const killedAt = await killNow(doomed);
      w.model.release(1);
      await vi.waitFor(async () => expect(await completedActivities(workflowId)).toBeGreaterThan(before), { timeout: 60_000, interval: 100 });
      const recoveryMs = Date.now() - killedAt;
      console.error(`recovery, model call in flight: ${recoveryMs} ms`);
      expect((await getAgentResult(env.client, workflowId)).status).toBe('completed');
      // The call's second attempt began after its first timed out on the heartbeat (10 s by default), not on its
      // start-to-close timeout (an hour).
      const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const retried = events.map((e) => e.activityTaskStartedEventAttributes).filter((a) => (a?.attempt ?? 0) > 1);
      expect(retried).toHaveLength(1);
      expect(retried[0]!.attempt).toBe(2);
      expect(retried[0]!.lastFailure?.timeoutFailureInfo?.timeoutType).toBe(TIMEOUT_TYPE.TIMEOUT_TYPE_HEARTBEAT);
      expect(eventKinds(events)).not.toContain('WorkflowTaskTimedOut');
    } finally {
      await cleanup(w);
    }
  }, 90_000);

  it('between turns (the run waiting for an approval, cached on the killed worker): the next step completes on the other worker, and no task the other worker took waits out a start-to-close timeout', async () => {
    const w = await world();
    try {
      const doomed = await startWorker(w);
      const settings = defaultSettings({ tools: ['slow_step'], approve: ['slow_step'] });
      const { workflowId } = await startAgent(env.client, { task: 'two steps', settings, taskQueue: w.taskQueue });
      // The first model call is done and the tool waits for approval: the workflow sits in the killed worker's cache.
      // (Waited for by the pending approval, not by a count of completed activities: the run's describeTools
      // activity completes first, and a count of 1 would catch the model call still in flight.)
      await vi.waitFor(
        async () => {
          const status = await getStatus(env.client, workflowId);
          expect(status.live && status.view.pendingApprovals).toHaveLength(1);
        },
        { timeout: 30_000, interval: 100 },
      );
      const before = await completedActivities(workflowId);
      const survivor = await startWorker(w);
      const killedAt = await killNow(doomed);
      await approveToolCall(env.client, workflowId);
      await vi.waitFor(async () => expect(await completedActivities(workflowId)).toBeGreaterThan(before), { timeout: 60_000, interval: 100 });
      const recoveryMs = Date.now() - killedAt;
      console.error(`recovery, between turns: ${recoveryMs} ms`);
      // The task meant for the dead worker's sticky queue went to the other worker: after a schedule-to-start timeout
      // on that queue (STICKY_QUEUE_TIMEOUT), or, when the approval came while the server still held the killed
      // worker's last poll of it, after that one task, started by the dead poll, timed out (start-to-close, 10 s:
      // seen in 3 of 5 whole runs on 2026-12-06, recovery 10.4 s instead of 5.4 s). Never a task the other worker
      // started and lost.
      const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const startedBy = new Map(events.flatMap((e) => (e.workflowTaskStartedEventAttributes ? [[String(e.eventId), e.workflowTaskStartedEventAttributes.identity ?? '']] : [])));
      const lostBy = events.flatMap((e) => {
        const timedOut = e.workflowTaskTimedOutEventAttributes;
        return timedOut && timedOut.timeoutType !== TIMEOUT_TYPE.TIMEOUT_TYPE_SCHEDULE_TO_START ? [startedBy.get(String(timedOut.startedEventId)) ?? '(unknown)'] : [];
      });
      // (A worker's identity is its pid@host: the killed one started the run's first tasks, the other one the next.)
      // A task the dead poll took may be recorded with no identity at all (a clean-clone run on 2026-12-06, 19:01,
      // recovery 10.5 s): so the check is that none was the other worker's, not that all were the killed one's.
      const identities = [...startedBy.values()];
      expect(identities.some((identity) => identity.startsWith(`${doomed.pid}@`))).toBe(true);
      expect(identities.some((identity) => identity.startsWith(`${survivor.pid}@`))).toBe(true);
      expect(lostBy.filter((identity) => identity.startsWith(`${survivor.pid}@`))).toEqual([]);
    } finally {
      await cleanup(w);
    }
  }, 90_000);
});
