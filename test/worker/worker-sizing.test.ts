// Worker sizing reaches the Worker: createAgentWorker's cache, slot and poller options (and the agent's defaults
// when none are given) are what the created Worker runs with; a worker sized small still runs an agent to the
// end; a team's own worker with AgentPlugin keeps Temporal's defaults and its own settings. Real dev server.
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { AGENT_WORKER_SIZING } from '../../src/core/policies.js';
import { AgentPlugin } from '../../src/worker/plugin.js';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { reply, startScriptedModel, text, toolUse } from '../../src/scripted/index.js';
import { createAgentWorker, type AgentWorkerOptions } from '../../src/worker/worker.js';
import { agentWorkerSizing, heapCachedWorkflows, sizingProblem } from '../../src/worker/worker-sizing.js';
import { useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();

/** A worker created (not run) with `options`; released after `fn` reads it. */
async function withCreatedWorker<T>(options: Partial<AgentWorkerOptions>, fn: (worker: Worker) => T): Promise<T> {
  const { worker } = await createAgentWorker({
    connection: env.connection,
    client: env.client,
    taskQueue: `sizing-${randomUUID()}`,
    model: { apiKey: 'test-key', baseURL: 'http://127.0.0.1:9' },
    ...options,
  });
  try {
    return fn(worker);
  } finally {
    await worker.runUntil(Promise.resolve()); // a created worker releases its resources by running
  }
}

/** What a Worker runs with, in the terms of the sizing options. */
function sizingOf(worker: Worker) {
  const o = worker.options;
  const slots = (s: (typeof o.tuner)['workflowTaskSlotSupplier']) => (s.type === 'fixed-size' ? s.numSlots : s.type);
  return {
    maxCachedWorkflows: o.maxCachedWorkflows,
    workflowTaskSlots: slots(o.tuner.workflowTaskSlotSupplier),
    activityTaskSlots: slots(o.tuner.activityTaskSlotSupplier),
    workflowPollers: o.workflowTaskPollerBehavior,
    activityPollers: o.activityTaskPollerBehavior,
  };
}

describe('worker sizing', () => {
  it('createAgentWorker without sizing options runs with the agent’s defaults (AGENT_WORKER_SIZING), not Temporal’s', async () => {
    const d = AGENT_WORKER_SIZING;
    const sizing = await withCreatedWorker({}, sizingOf);
    expect(sizing).toEqual({
      maxCachedWorkflows: heapCachedWorkflows(),
      workflowTaskSlots: d.maxWorkflowTasks,
      activityTaskSlots: d.maxActivities,
      workflowPollers: agentWorkerSizing().workflowTaskPollerBehavior,
      activityPollers: agentWorkerSizing().activityTaskPollerBehavior,
    });
  });

  it('the default cache is Temporal’s own heap-derived one, computed so it can be shown: 600 runs per GB of heap above 200 MB, at least 10', async () => {
    expect([heapCachedWorkflows(4144), heapCachedWorkflows(1024), heapCachedWorkflows(150)]).toEqual([2310, 482, 10]);
    const plain = await Worker.create({ connection: env.connection, taskQueue: `plain-${randomUUID()}`, activities: { noop: async () => {} } });
    try {
      expect(plain.options.maxCachedWorkflows).toBe(heapCachedWorkflows());
    } finally {
      await plain.runUntil(Promise.resolve());
    }
  });

  it('each sizing option given reaches the Worker: cache, workflow-task slots, pollers (a number or auto), activity slots', async () => {
    const sizing = await withCreatedWorker(
      { maxCachedWorkflows: 300, maxWorkflowTasks: 60, workflowPollers: 'auto', activityPollers: 7, maxActivities: 25 },
      sizingOf,
    );
    expect(sizing).toEqual({
      maxCachedWorkflows: 300,
      workflowTaskSlots: 60,
      activityTaskSlots: 25,
      workflowPollers: { type: 'autoscaling', minimum: 1, initial: 5, maximum: 100 },
      activityPollers: { type: 'simple-maximum', maximum: 7 },
    });
  });

  it('a small cache alone lowers the default workflow-task slots and pollers to fit it (Temporal’s rule), instead of failing', async () => {
    const sizing = await withCreatedWorker({ maxCachedWorkflows: 4 }, sizingOf);
    expect(sizing).toMatchObject({ maxCachedWorkflows: 4, workflowTaskSlots: 4, workflowPollers: { type: 'simple-maximum', maximum: 4 } });
  });

  it('more workflow-task slots than cached runs, or more workflow pollers than slots, is refused with the rule and the fix', async () => {
    await expect(withCreatedWorker({ maxCachedWorkflows: 10, maxWorkflowTasks: 20 }, sizingOf)).rejects.toThrow(
      /^worker sizing: maxWorkflowTasks \(20\) cannot exceed maxCachedWorkflows \(10\): a workflow task needs its run in the cache; raise maxCachedWorkflows or lower maxWorkflowTasks$/,
    );
    await expect(withCreatedWorker({ maxWorkflowTasks: 4, workflowPollers: 6 }, sizingOf)).rejects.toThrow(/workflowPollers \(6\) cannot exceed maxWorkflowTasks \(4\)/);
    await expect(withCreatedWorker({ maxCachedWorkflows: 1 }, sizingOf)).rejects.toThrow(/maxCachedWorkflows must be 0 \(no cache\) or at least 2 \(got 1\)/);
    // The same rule holds for a cache given through workerOptions.
    await expect(withCreatedWorker({ maxWorkflowTasks: 30, workerOptions: { maxCachedWorkflows: 8 } }, sizingOf)).rejects.toThrow(
      /maxWorkflowTasks \(30\) cannot exceed maxCachedWorkflows \(8\)/,
    );
  });

  it('sizing given in workerOptions wins over the agent’s defaults; a tuner there replaces the slot options', async () => {
    const own = await withCreatedWorker({ workerOptions: { maxCachedWorkflows: 12, maxConcurrentActivityTaskExecutions: 9 } }, sizingOf);
    expect(own).toMatchObject({ maxCachedWorkflows: 12, workflowTaskSlots: 12, activityTaskSlots: 9 });
    const tuner = {
      workflowTaskSlotSupplier: { type: 'fixed-size', numSlots: 5 },
      activityTaskSlotSupplier: { type: 'fixed-size', numSlots: 6 },
      localActivityTaskSlotSupplier: { type: 'fixed-size', numSlots: 7 },
      nexusTaskSlotSupplier: { type: 'fixed-size', numSlots: 8 },
    } as const;
    expect(await withCreatedWorker({ workerOptions: { tuner } }, sizingOf)).toMatchObject({ workflowTaskSlots: 5, activityTaskSlots: 6 });
    await expect(withCreatedWorker({ maxActivities: 3, workerOptions: { tuner } }, sizingOf)).rejects.toThrow(/give one or the other/);
  });

  it('a worker sized small (2 cached runs, 2 workflow-task slots, autoscaling pollers) runs three agents at once to the end', async () => {
    const model = await startScriptedModel({
      script: (_req, turn) => ({ ...(turn === 0 ? reply([toolUse('calculator', { expression: '6*7' })]) : reply([text('42')])), delayMs: 200 }),
    });
    const taskQueue = `sizing-small-${randomUUID()}`;
    try {
      const { worker } = await createAgentWorker({
        connection: env.connection,
        client: env.client,
        taskQueue,
        model: { apiKey: 'test-key', baseURL: model.url },
        maxCachedWorkflows: 2,
        maxWorkflowTasks: 2,
        workflowPollers: 'auto',
        activityPollers: 'auto',
        maxActivities: 1,
      });
      expect(sizingOf(worker)).toMatchObject({ maxCachedWorkflows: 2, workflowTaskSlots: 2, activityTaskSlots: 1 });
      const results = await worker.runUntil(async () => {
        const ids = await Promise.all(
          ['one', 'two', 'three'].map(async (task) => (await startAgent(env.client, { task, settings: defaultSettings({ tools: ['calculator'] }), taskQueue })).workflowId),
        );
        return Promise.all(ids.map((id) => getAgentResult(env.client, id)));
      });
      expect(results.map((r) => [r.status, r.text, r.toolCalls])).toEqual(Array(3).fill(['completed', '42', 1]));
    } finally {
      await model.close();
    }
  });

  it('AgentPlugin on a team’s own worker changes none of its sizing: Temporal’s defaults, or the team’s own settings', async () => {
    const plain = await Worker.create({ connection: env.connection, taskQueue: `team-${randomUUID()}`, activities: { noop: async () => {} } });
    const make = (extra: object) =>
      Worker.create({
        connection: env.connection,
        taskQueue: `team-${randomUUID()}`,
        plugins: [new AgentPlugin({ model: { apiKey: 'test-key' } })],
        ...extra,
      });
    const withPlugin = await make({});
    const teams = await make({ maxCachedWorkflows: 77, maxConcurrentWorkflowTaskExecutions: 33, maxConcurrentActivityTaskExecutions: 11 });
    try {
      expect(sizingOf(withPlugin)).toEqual(sizingOf(plain));
      expect(sizingOf(teams)).toMatchObject({ maxCachedWorkflows: 77, workflowTaskSlots: 33, activityTaskSlots: 11 });
    } finally {
      for (const w of [plain, withPlugin, teams]) await w.runUntil(Promise.resolve());
    }
  });
});

describe('sizingProblem', () => {
  const flagNames = { maxCachedWorkflows: '--max-cached-workflows', maxWorkflowTasks: '--max-workflow-tasks', workflowPollers: '--workflow-pollers' };

  it('is one rule that speaks the library’s option names or the worker command’s flags, and marks defaults it was not given', () => {
    const tooManyTasks = { maxCachedWorkflows: 10, maxWorkflowTasks: 20 };
    expect(sizingProblem(tooManyTasks)).toBe(
      'maxWorkflowTasks (20) cannot exceed maxCachedWorkflows (10): a workflow task needs its run in the cache; raise maxCachedWorkflows or lower maxWorkflowTasks',
    );
    expect(sizingProblem({ ...tooManyTasks, defaulted: { maxCachedWorkflows: true } }, flagNames)).toBe(
      '--max-workflow-tasks (20) cannot exceed --max-cached-workflows (10, the default): a workflow task needs its run in the cache; raise --max-cached-workflows or lower --max-workflow-tasks',
    );
    expect(sizingProblem({ maxCachedWorkflows: 100, maxWorkflowTasks: 4, workflowPollers: 6, defaulted: { maxWorkflowTasks: true } }, flagNames)).toBe(
      '--workflow-pollers (6) cannot exceed --max-workflow-tasks (4, the default): a poll needs a free slot; raise --max-workflow-tasks or lower --workflow-pollers',
    );
    expect(sizingProblem({ maxCachedWorkflows: 1 }, flagNames)).toBe('--max-cached-workflows must be 0 (no cache) or at least 2 (got 1)');
  });

  it('finds nothing wrong with a sizing Temporal accepts: no cache, autoscaling pollers, slots within the cache', () => {
    expect(sizingProblem({ maxCachedWorkflows: 0, maxWorkflowTasks: 500, workflowPollers: 'auto' })).toBeUndefined();
    expect(sizingProblem({ maxCachedWorkflows: 40, maxWorkflowTasks: 40, workflowPollers: 40 })).toBeUndefined();
  });
});
