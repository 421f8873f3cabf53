// Worker Versioning on the dev server: a run started on v1 stays on v1 while new runs go to v2, and moves to v2
// at its continue-as-new; its model calls (their own task queue) are served by its own version throughout. An
// auto-upgrade run moves at its next task; a worker that only names a version is left unversioned.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { reply, startScriptedModel, text, toolUse, type MessagesRequestBody, type ScriptedModel, type ScriptTurn } from '../../src/scripted/index.js';
import { createAgentWorker, type AgentWorker } from '../../src/worker/worker.js';
import { openTestEnv, type TestEnv } from '../helpers/harness.js';
import { activityWorkers, runBuildId, setCurrentVersion, workflowTaskBuildIds } from '../helpers/deployments.js';

let env: TestEnv;
let model: ScriptedModel;
beforeAll(async () => {
  env = await openTestEnv();
  model = await startScriptedModel({ script: byTask });
});
afterAll(async () => {
  await model?.close();
  await env?.close();
});

/** The long job: a tool call, then a second model call held mid-stream (the run waits on it, without sleeping),
 * then, in the run it continued into, the answer. Any other task is answered at once. */
function byTask(req: MessagesRequestBody, turn: number): ScriptTurn {
  const first = req.messages[0]?.content;
  const task = typeof first === 'string' ? first : JSON.stringify(first);
  if (!task.includes('long job')) return reply([text('short job done')]);
  if (turn === 0) return reply([toolUse('calculator', { expression: '1 + 1' })]);
  if (turn === 1) return { ...reply([text('Working.'), toolUse('calculator', { expression: '2 + 2' })]), holdAfterEvents: 2 };
  return reply([text('long job done')]);
}

async function versionWorker(taskQueue: string, deployment: string, buildId: string, versioning?: 'auto-upgrade', on = model): Promise<AgentWorker> {
  return createAgentWorker({
    connection: env.connection,
    client: env.client,
    taskQueue,
    model: { apiKey: 'test-key', baseURL: on.url },
    deployment: { name: deployment, buildId, ...(versioning ? { versioning } : {}) },
    workerOptions: { identity: `worker-${buildId}` },
  });
}

describe('worker versioning', () => {
  it('keeps a run started on v1 on v1 while new runs go to v2, and moves it to v2 at its continue-as-new', async () => {
    const taskQueue = `versioning-${randomUUID()}`;
    const deployment = `agents-${randomUUID().slice(0, 8)}`;
    const start = (task: string, settings = {}) =>
      startAgent(env.client, { task, taskQueue, settings: defaultSettings({ tools: ['calculator'], ...settings }) }).then((s) => s.workflowId);

    const v1 = await versionWorker(taskQueue, deployment, 'v1');
    const v1Running = v1.worker.run();
    let v2Running: Promise<void> | undefined;
    let v2: AgentWorker | undefined;
    try {
      await setCurrentVersion(env.client, deployment, 'v1');
      const longJob = await start('a long job', { continueAsNewAfterSteps: 2 });
      // Its second model call is under way on v1 (held mid-stream): the run is pinned to v1.
      await vi.waitFor(() => expect(model.requests.filter((r) => r.turn === 1)).toHaveLength(1), { timeout: 20_000 });
      const firstRunId = (await env.client.workflow.getHandle(longJob).describe()).runId;
      expect(await runBuildId(env.client, longJob)).toBe('v1');

      v2 = await versionWorker(taskQueue, deployment, 'v2');
      v2Running = v2.worker.run();
      await setCurrentVersion(env.client, deployment, 'v2');
      const newJob = await start('a short job');
      expect((await getAgentResult(env.client, newJob)).text).toBe('short job done');
      expect(await runBuildId(env.client, newJob)).toBe('v2');
      expect(await runBuildId(env.client, longJob)).toBe('v1'); // still pinned, v2 current meanwhile

      model.release();
      const result = await getAgentResult(env.client, longJob);
      expect(result).toMatchObject({ status: 'completed', text: 'long job done', runsUsed: 2 });

      const first = (await env.client.workflow.getHandle(longJob, firstRunId).fetchHistory()).events ?? [];
      const last = (await env.client.workflow.getHandle(longJob).fetchHistory()).events ?? [];
      expect(first.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
      expect(new Set(workflowTaskBuildIds(first))).toEqual(new Set(['v1']));
      expect(new Set(workflowTaskBuildIds(last))).toEqual(new Set(['v2']));
      expect(await runBuildId(env.client, longJob)).toBe('v2');
      // Model calls (on the run's queue, eager) and tool calls ran on the run's version: v1 before, v2 after.
      const byVersion = (events: typeof first) => activityWorkers(events).map((a) => `${a.type}@${a.identity}`);
      expect(byVersion(first)).toEqual(['callModel@worker-v1', 'runTool@worker-v1', 'callModel@worker-v1', 'runTool@worker-v1']);
      expect(byVersion(last)).toEqual(['callModel@worker-v2']);
    } finally {
      model.release();
      v1.worker.shutdown();
      v2?.worker.shutdown();
      await Promise.allSettled([v1Running, v2Running]);
    }
  });

  it('a worker that names a version without Worker Versioning continues runs as new as before', async () => {
    model.release(); // the long job's second call is not held here
    const taskQueue = `unversioned-${randomUUID()}`;
    const agent = await createAgentWorker({
      connection: env.connection,
      client: env.client,
      taskQueue,
      model: { apiKey: 'test-key', baseURL: model.url },
      // A build id for the record only: the server treats the worker as unversioned.
      workerOptions: { workerDeploymentOptions: { useWorkerVersioning: false, version: { deploymentName: 'agents', buildId: 'named-only' } } },
    });
    const result = await agent.worker.runUntil(async () => {
      const { workflowId } = await startAgent(env.client, { task: 'a long job, unversioned', taskQueue, settings: defaultSettings({ tools: ['calculator'], continueAsNewAfterSteps: 2 }) });
      return getAgentResult(env.client, workflowId);
    });
    expect(result).toMatchObject({ status: 'completed', text: 'long job done', runsUsed: 2 });
  });

  it('with --versioning auto-upgrade a run moves to v2 at its next workflow task, without continuing as new', async () => {
    const own = await startScriptedModel({ script: byTask });
    const taskQueue = `auto-upgrade-${randomUUID()}`;
    const deployment = `agents-${randomUUID().slice(0, 8)}`;
    const v1 = await versionWorker(taskQueue, deployment, 'v1', 'auto-upgrade', own);
    const v1Running = v1.worker.run();
    let v2: AgentWorker | undefined;
    let v2Running: Promise<void> | undefined;
    try {
      await setCurrentVersion(env.client, deployment, 'v1');
      const { workflowId } = await startAgent(env.client, { task: 'a long job', taskQueue, settings: defaultSettings({ tools: ['calculator'] }) });
      await vi.waitFor(() => expect(own.requests.filter((r) => r.turn === 1)).toHaveLength(1), { timeout: 20_000 });
      v2 = await versionWorker(taskQueue, deployment, 'v2', 'auto-upgrade', own);
      v2Running = v2.worker.run();
      await setCurrentVersion(env.client, deployment, 'v2');
      own.release();
      const result = await getAgentResult(env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', text: 'long job done' });
      expect(result.runsUsed ?? 1).toBe(1);
      const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const builds = workflowTaskBuildIds(events);
      expect(builds[0]).toBe('v1');
      expect(builds.at(-1)).toBe('v2');
    } finally {
      own.release();
      v1.worker.shutdown();
      v2?.worker.shutdown();
      await Promise.allSettled([v1Running, v2Running]);
      await own.close();
    }
  });
});
