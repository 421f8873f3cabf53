// Task priority and fairness on the dev server: a run's priority and fairness key reach its start, each activity
// it schedules, and a sub-agent's child run (whose own `priority` in the config wins).
import { describe, expect, it } from 'vitest';
import type { temporal } from '@temporalio/proto';
import { defaultSettings, getAgentResult, resumeAgent, startAgent } from '../../src/client/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { useSharedAgent, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();
// One worker for all the file's tests, with the researcher sub-agent one of them delegates to.
const shared = useSharedAgent(env, {
  agents: { researcher: { description: 'Researches one question.', system: 'You are the researcher.', tools: ['calculator'], priority: 2 } },
});
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

function priorities(events: HistoryEvent[]) {
  const started = events[0].workflowExecutionStartedEventAttributes?.priority;
  const activities = events.flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    return a ? [{ type: a.activityType?.name, priorityKey: a.priority?.priorityKey ?? 0, fairnessKey: a.priority?.fairnessKey ?? '' }] : [];
  });
  return { started: { priorityKey: started?.priorityKey ?? 0, fairnessKey: started?.fairnessKey ?? '', fairnessWeight: started?.fairnessWeight ?? 0 }, activities };
}

describe('priority and fairness', () => {
  it("a run's priority and fairness key are on its start and on every activity it schedules", async () => {
    const script = [reply([toolUse('calculator', { expression: '6 * 7' })]), reply([text('42')])];
    await shared.with({ script }, async (h) => {
      const { workflowId } = await startAgent(env.client, {
        task: 'what is 6 * 7?',
        settings: defaultSettings({ tools: ['calculator'] }),
        taskQueue: h.taskQueue,
        priority: { priorityKey: 1, fairnessKey: 'tenant-a', fairnessWeight: 2 },
      });
      expect((await getAgentResult(env.client, workflowId)).text).toBe('42');
      const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
      const seen = priorities(history.events ?? []);
      expect(seen.started).toEqual({ priorityKey: 1, fairnessKey: 'tenant-a', fairnessWeight: 2 });
      expect(seen.activities.map((a) => a.type)).toEqual(['callModel', 'runTool', 'callModel']);
      for (const a of seen.activities) expect(a).toMatchObject({ priorityKey: 1, fairnessKey: 'tenant-a' });
    });
  });

  it("a sub-agent's child run takes the priority its config gives, and its parent's fairness key", async () => {
    const script = (req: { system?: unknown }, turn: number) => {
      const system = typeof req.system === 'string' ? req.system : '';
      if (system.includes('researcher')) return turn === 0 ? reply([toolUse('calculator', { expression: '6 * 7' })]) : reply([text('42')]);
      return turn === 0 ? reply([toolUse('agent__researcher', { task: 'what is 6 * 7?' })]) : reply([text('It is 42.')]);
    };
    await shared.with({ script }, async (h) => {
      const { workflowId } = await startAgent(env.client, {
        task: 'ask the researcher',
        settings: defaultSettings({ tools: ['calculator', 'agent__researcher'] }),
        taskQueue: h.taskQueue,
        priority: { priorityKey: 4, fairnessKey: 'tenant-b' },
      });
      expect((await getAgentResult(env.client, workflowId)).text).toBe('It is 42.');
      const parent = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const initiated = parent.flatMap((e) => e.startChildWorkflowExecutionInitiatedEventAttributes ?? []);
      expect(initiated).toHaveLength(1);
      expect(initiated[0].priority?.priorityKey).toBe(2);
      const child = (await env.client.workflow.getHandle(initiated[0].workflowId!).fetchHistory()).events ?? [];
      const seen = priorities(child);
      expect(seen.started).toMatchObject({ priorityKey: 2, fairnessKey: 'tenant-b' });
      expect(seen.activities.length).toBeGreaterThan(0);
      for (const a of seen.activities) expect(a).toMatchObject({ priorityKey: 2, fairnessKey: 'tenant-b' });
    });
  });

  it('a resumed job keeps its priority and fairness key', async () => {
    const script = [reply([toolUse('calculator', { expression: '6 * 7' })]), reply([text('42')])];
    await shared.with({ script }, async (h) => {
      const { workflowId } = await startAgent(env.client, {
        task: 'what is 6 * 7?',
        settings: defaultSettings({ tools: ['calculator'], maxSteps: 1, summaryOn: [] }),
        taskQueue: h.taskQueue,
        priority: { priorityKey: 2, fairnessKey: 'tenant-c' },
      });
      expect((await getAgentResult(env.client, workflowId)).guard).toBe('max_steps');
      await resumeAgent(env.client, workflowId, { moreSteps: 3, taskQueue: h.taskQueue });
      expect((await getAgentResult(env.client, workflowId)).text).toBe('42');
      const seen = priorities((await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []);
      expect(seen.started).toMatchObject({ priorityKey: 2, fairnessKey: 'tenant-c' });
    });
  });
});
