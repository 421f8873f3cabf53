// Inspection against the real dev server: what the Temporal UI and a fleet query see of a run (activity
// summaries, static summary and details, search attributes) and what a user sees of a live one (the status
// query, current details).
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { defaultSettings, getAgentResult, getStatus, startAgent } from '../../src/client/index.js';
import * as SA from '../../src/core/search-attributes.js';
import { totalTokens } from '../../src/core/transcript.js';
import { franceDemoScript, reply, text, toolUse } from '../../src/scripted/index.js';
import { eventually, startRun, useSharedAgent, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();
// One worker for all the file's tests.
const agents = useSharedAgent(env);

const FRANCE = 'Search for the population of France and calculate what 15% of that number is';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The `summary` of every ActivityTaskScheduled event, decoded, in history order. */
async function activitySummaries(client: Client, workflowId: string): Promise<Array<{ type: string; summary: unknown }>> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const converter = client.options.loadedDataConverter.payloadConverter;
  return (history.events ?? [])
    .filter((e: HistoryEvent) => e.activityTaskScheduledEventAttributes)
    .map((e: HistoryEvent) => ({
      type: e.activityTaskScheduledEventAttributes!.activityType!.name!,
      summary: e.userMetadata?.summary ? converter.fromPayload(e.userMetadata.summary) : undefined,
    }));
}

describe('what the Temporal UI shows of a run', () => {
  it('puts a summary on every scheduled activity: the model call number and message count, the tool call and its argument', async () => {
    await agents.with({ script: franceDemoScript }, async ({ run, env }) => {
      const result = await run(FRANCE);
      expect(result.status).toBe('completed');
      expect(await activitySummaries(env.client, result.workflowId)).toEqual([
        { type: 'callModel', summary: 'model #1 · 1 message' },
        { type: 'runTool', summary: 'web_search("population of France")' },
        { type: 'callModel', summary: 'model #2 · 3 messages' },
        { type: 'runTool', summary: 'calculator("68606000 * 0.15")' },
        { type: 'callModel', summary: 'model #3 · 5 messages' },
      ]);
    });
  });

  it('gives the run a static summary (the task) and static details naming the model and the tools', async () => {
    await agents.with({ script: franceDemoScript }, async ({ run, env }) => {
      const result = await run(FRANCE, { model: 'claude-test-model' });
      const description = await env.client.workflow.getHandle(result.workflowId).describe();
      expect(await description.staticSummary()).toBe(FRANCE);
      const details = await description.staticDetails();
      expect(details).toContain('claude-test-model');
      expect(details).toMatch(/calculator, web_search/);
    });
  });
});

describe('search attributes', () => {
  it('a finished run carries status, steps, tokens, cost, stop reason and model, in describe() and in a visibility query', async () => {
    await agents.with({ script: franceDemoScript }, async ({ run, env }) => {
      const result = await run(FRANCE);
      expect(result.status).toBe('completed');
      const expected = {
        status: 'completed',
        steps: 3,
        tokens: totalTokens(result.usage),
        costUsd: result.costUsd ?? 0,
        stopReason: 'end_turn',
        guard: '',
        model: defaultSettings().model,
      };
      expect(expected.tokens).toBeGreaterThan(0);
      const attrs = (await env.client.workflow.getHandle(result.workflowId).describe()).typedSearchAttributes;
      expect({
        status: attrs.get(SA.AgentStatus),
        steps: attrs.get(SA.AgentSteps),
        tokens: attrs.get(SA.AgentTokens),
        costUsd: attrs.get(SA.AgentCostUsd),
        stopReason: attrs.get(SA.AgentStopReason),
        guard: attrs.get(SA.AgentGuard),
        model: attrs.get(SA.AgentModel),
      }).toEqual(expected);

      // Visibility is eventually consistent: the list may lag the close by a moment.
      const query = `AgentStatus = 'completed' AND AgentSteps = 3 AND WorkflowId = '${result.workflowId}'`;
      const listed = await eventually(async () => {
        const found = [];
        for await (const info of env.client.workflow.list({ query })) found.push(info);
        return found;
      }, (found) => found.length === 1);
      expect(listed[0].workflowId).toBe(result.workflowId);
      expect(listed[0].status.name).toBe('COMPLETED');
      expect(listed[0].typedSearchAttributes.get(SA.AgentTokens)).toBe(expected.tokens);
      expect(listed[0].typedSearchAttributes.get(SA.AgentStopReason)).toBe('end_turn');
    });
  });

  it('a run stopped by a guard carries AgentGuard, so stopped runs can be filtered by guard', async () => {
    const script = [reply([text('Computing.'), toolUse('calculator', { expression: '1 + 1' })]), reply([text('never reached')])];
    await agents.with({ script }, async ({ run, env }) => {
      const result = await run('count', { maxSteps: 1, summaryOn: [] });
      expect(result).toMatchObject({ status: 'stopped', guard: 'max_steps' });
      const attrs = (await env.client.workflow.getHandle(result.workflowId).describe()).typedSearchAttributes;
      expect(attrs.get(SA.AgentStatus)).toBe('stopped');
      expect(attrs.get(SA.AgentGuard)).toBe('max_steps');
      expect(attrs.get(SA.AgentSteps)).toBe(1);
      const query = `AgentGuard = 'max_steps' AND WorkflowId = '${result.workflowId}'`;
      await eventually(() => env.client.workflow.count(query), (c) => c.count === 1);
    });
  });
});

describe('search attribute upserts', () => {
  it('a run of fast turns upserts when its status changes, not on every turn: the end carries the final steps', async () => {
    const script = (_req: unknown, turn: number) =>
      turn < 5 ? reply([toolUse('calculator', { expression: `${turn} + 1` })]) : reply([text('done')]);
    await agents.with({ script }, async ({ run, env }) => {
      const result = await run('six fast turns', { maxSteps: 10 });
      expect(result).toMatchObject({ status: 'completed', steps: 6 });
      const history = await env.client.workflow.getHandle(result.workflowId).fetchHistory();
      // Ours, and none of the SDK's upserts of TemporalChangeVersion (one per patch marker: the 1.0 code records none).
      const upserts = (history.events ?? []).filter(
        (e: HistoryEvent) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.AgentStatus,
      );
      const versionUpserts = (history.events ?? []).filter(
        (e: HistoryEvent) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.TemporalChangeVersion,
      );
      expect(versionUpserts).toHaveLength(0);
      // Running from the start (startAgent set the attributes), so once, completed: the six progress-only changes
      // fell within the 10 s interval. (Without the throttle: one per model call as well; without the starting
      // attributes, one more at the first workflow task.)
      expect(history.events?.[0]?.workflowExecutionStartedEventAttributes?.searchAttributes?.indexedFields?.AgentStatus).toBeTruthy();
      expect(upserts).toHaveLength(1);
      const attrs = (await env.client.workflow.getHandle(result.workflowId).describe()).typedSearchAttributes;
      expect(attrs.get(SA.AgentSteps)).toBe(6);
      expect(attrs.get(SA.AgentTokens)).toBe(totalTokens(result.usage));
    });
  });
});

describe('live status', () => {
  it('getStatus answers mid-run from the worker: running, the steps and tool calls so far; current details name the step', async () => {
    const script = [
      reply([text('Computing first.'), toolUse('calculator', { expression: '6 * 7' })]),
      { ...reply([text('It is 42.')]), hold: true },
    ];
    await agents.with({ script }, async (h) => {
      const workflowId = await startRun(h, 'six times seven');
      await h.model.waitForHeld();

      const status = await getStatus(h.env.client, workflowId);
      expect(status.live).toBe(true);
      if (!status.live) return;
      expect(status.view).toMatchObject({
        workflowId,
        status: 'running',
        steps: 1,
        toolCalls: 1,
        stopReason: 'tool_use',
        lastText: 'Computing first.',
        messages: 3,
        inFlight: [],
        pendingApprovals: [],
        waitingForMessage: false,
      });
      // The same progress the UI shows as "current details", served by the SDK's built-in metadata query.
      const metadata = await h.env.client.workflow.getHandle(workflowId).query<{ currentDetails: string }>('__temporal_workflow_metadata');
      expect(metadata.currentDetails).toMatch(/\*\*running\*\* · step 1 · 1 tool calls · [\d,]+ tokens/);
      expect(metadata.currentDetails).toContain('last stop reason: tool_use');

      h.model.release();
      const result = await getAgentResult(h.env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', steps: 2, text: 'It is 42.' });
      // A closed run is read from its history (a worker is not asked).
      const after = await getStatus(h.env.client, workflowId);
      expect(after.view?.status).toBe('completed');
    });
  });

  it('getStatus answers from the run\'s history when no worker answers the query, instead of hanging', async () => {
    await agents.with({ script: [reply([text('unused')])] }, async (h) => {
      // A run on a task queue no worker polls: nobody can answer the query.
      const orphan = await startAgent(h.env.client, {
        task: 'nobody will run this',
        settings: defaultSettings({ tools: ['calculator'] }),
        taskQueue: `${h.taskQueue}-no-worker`,
      });
      const status = await getStatus(h.env.client, orphan.workflowId, 500);
      expect(status.live).toBe(false);
      if (status.live) return;
      expect(status.executionStatus).toBe('RUNNING');
      expect(status.reason).toMatch(/no worker answered the status query within 500 ms/);
      expect(status.view).toMatchObject({ workflowId: orphan.workflowId, status: 'running', steps: 0, messages: 1 });
      await h.env.client.workflow.getHandle(orphan.workflowId).terminate('test cleanup');
    });
  });
});
