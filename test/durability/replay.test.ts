// Determinism: recorded histories (committed under test/fixtures/histories/, produced by this file with
// RECORD_HISTORIES=1) are replayed through the current workflow code. A change that would break running
// jobs fails here; from 1.0 on, such a change needs `patched()` (see docs/contributing.md).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import {
  AGENT_WORKFLOW,
  answerElicitation,
  approveToolCall,
  cancelRun,
  closeChatRun,
  completeToolCall,
  defaultSettings,
  denyToolCall,
  getAgentResult,
  getStatus,
  resumeAgent,
  sendFollowUp,
  startAgent,
  type RunPriority,
} from '../../src/client/index.js';
import { setCurrentVersion } from '../helpers/deployments.js';
import { temporal as temporalProto } from '@temporalio/proto';
import { apiError, franceDemoScript, reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { agentDataConverter } from '../../src/codec/data-converter.js';
import { ignoredTelemetrySinks } from '../../src/core/telemetry-sink.js';
import { localActivityTypes, openTestEnv, withAgent, type AgentHarness, type TestEnv } from '../helpers/harness.js';
import { stdioFixture } from '../helpers/mcp.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import type { McpServerConfig, SubAgentConfig } from '../../src/config/types.js';
import { defineTool, type AgentTool } from '../../src/tools/types.js';
import type { AgentInput, AgentResult, AgentSettings, AgentStatusView } from '../../src/core/types.js';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';

const ROOT_DIR = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));
/** Generations of fixtures, oldest first: each holds every scenario as the code of its day recorded it, and every
 * one is replayed, so the paths of runs started on older code stay covered after a `patched()` change. The first is
 * the 1.0 baseline (nothing was released before it, so no older path is kept); start a new generation (a dated
 * folder) with the first change that records differently. */
const GENERATIONS = [ROOT_DIR];
const DIR = GENERATIONS[GENERATIONS.length - 1];
const RECORD = process.env.RECORD_HISTORIES === '1' || process.env.RECORD_HISTORIES === 'overwrite';

let env: TestEnv;
beforeAll(async () => {
  env = await openTestEnv();
});
afterAll(async () => {
  await env?.close();
});

interface Scenario {
  name: string;
  script: Script;
  settings?: Partial<AgentSettings>;
  /** Drives the run (approvals, messages) while it runs. */
  drive?: (h: AgentHarness, workflowId: string) => Promise<void>;
  /** Which run of the job to record: the latest (default), or the first (the one that continued as new). */
  run?: 'first' | 'latest';
  /** What the recorded history must hold for the fixture to cover the path it is named for. */
  proves?: (history: Recorded) => void;
  /** MCP servers of the recording worker. */
  mcpServers?: Record<string, McpServerConfig>;
  /** Tools of the recording worker (default: the built-ins). */
  tools?: AgentTool[];
  /** What the recording's scripted model refuses or enforces. */
  modelOptions?: { compaction?: boolean; taskBudget?: boolean; contextWindow?: number };
  /** Sub-agents of the recording worker. */
  agents?: Record<string, SubAgentConfig>;
  /** Start the run with a raw workflow start, around startAgent's settings check (as an older client would). */
  startAround?: boolean;
  /** Record on a versioned worker (a Worker Deployment version made current before the run starts). */
  deployment?: boolean;
  /** The run's task priority (startAgent's `priority`). */
  priority?: RunPriority;
  /** Record with a webhook receiver (its URL added to the settings' webhooks) and a signing secret. */
  webhookReceiver?: boolean;
  /** Start the run with a trace: through a client with Temporal's OpenTelemetry interceptor. */
  traced?: boolean;
}

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const temporalEnums = temporalProto.api.enums.v1;

/** A recorded history, with its workflow input and result decoded. */
interface Recorded {
  events: HistoryEvent[];
  input: AgentInput;
  result: AgentResult | undefined;
}

function recorded(history: temporal.api.history.v1.IHistory): Recorded {
  const events = history.events ?? [];
  const converter = defaultPayloadConverter;
  const input = converter.fromPayload<AgentInput>(events[0].workflowExecutionStartedEventAttributes!.input!.payloads![0]);
  const completed = events.at(-1)?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
  return { events, input, result: completed ? converter.fromPayload<AgentResult>(completed) : undefined };
}

const has = (events: HistoryEvent[], key: keyof HistoryEvent) => events.some((e) => e[key]);

/** Polls the live status until `ok` holds. */
async function statusUntil(h: AgentHarness, id: string, ok: (v: AgentStatusView) => boolean): Promise<void> {
  await expect
    .poll(async () => {
      const s = await getStatus(h.env.client, id);
      return s.live && ok(s.view);
    }, { timeout: 15_000 })
    .toBe(true);
}

const loopForever: Script = (req, turn) =>
  req.tool_choice?.type === 'none' ? reply([text('Partial: still counting.')]) : reply([toolUse('calculator', { expression: `${turn} + 1` })]);

/** The same tool call with the same arguments, every turn; a summary when tools are disabled. */
const repeatForever: Script = (req) =>
  req.tool_choice?.type === 'none'
    ? reply([text('Partial: the same call kept coming back.')])
    : reply([toolUse('calculator', { expression: '2 + 2' })]);

/** A calculator call that fails (a different bad expression each turn); a summary when tools are disabled. */
const failForever: Script = (req, turn) =>
  req.tool_choice?.type === 'none'
    ? reply([text('Partial: the calculator kept failing.')])
    : reply([toolUse('calculator', { expression: `${turn} /` })]);

const threeSteps: Script = [
  reply([text('First.'), toolUse('calculator', { expression: '6 * 7' })]),
  reply([text('Second.'), toolUse('calculator', { expression: '7 * 6' })]),
  reply([text('42')]),
];

/** The completion tokens the `outside_job` tool handed out, for the scenario that completes its call. */
const completionTokens: string[] = [];

const timedTool = defineTool({
  name: 'slow_build',
  description: 'Builds slowly, reporting progress.',
  inputSchema: { type: 'object', properties: {} },
  timeout: '2s',
  retry: { maximumAttempts: 1 },
  execute: async (_input, { progress, signal }) => {
    progress('compiling', 0.5);
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, 4_000);
      signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('aborted'))));
    });
    return 'built';
  },
});

/** A tool whose calls run as local activities (`fast: true`). */
const fastAdd = defineTool<{ a: number; b: number }>({
  name: 'fast_add',
  description: 'Adds two numbers.',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  fast: true,
  execute: async ({ a, b }) => String(a + b),
});

/** A fast tool whose one attempt fails: the model gets an is_error result, as from any tool. */
const fastFailing = defineTool<{ path: string }>({
  name: 'fast_write',
  description: 'Writes a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  fast: true,
  retry: { maximumAttempts: 1 },
  execute: async () => {
    throw new Error('disk full');
  },
});

const outsideJob = defineTool({
  name: 'outside_job',
  description: 'Starts a job elsewhere; it reports back.',
  inputSchema: { type: 'object', properties: {} },
  timeout: '10m',
  completesLater: true,
  execute: async (_input, context) => {
    completionTokens.push(context.completionToken);
    return context.completeLater();
  },
});

/** The workflow id a delegating run was recorded under, read back from its children's ids (`<parent>/<tool_use
 * id>`): its replay must start them under the same ids. Other histories replay under any id. */
function recordedWorkflowId(history: temporal.api.history.v1.IHistory): string | undefined {
  const child = history.events?.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)?.startChildWorkflowExecutionInitiatedEventAttributes;
  return child?.workflowId?.slice(0, child.workflowId.lastIndexOf('/'));
}

/** The patch ids a history's markers record. */
function markerIds(events: HistoryEvent[]): string[] {
  return events.flatMap((e) => {
    const data = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0];
    return data ? [defaultPayloadConverter.fromPayload<{ id: string }>(data).id] : [];
  });
}

const SCENARIOS: Scenario[] = [
  {
    name: 'france',
    script: franceDemoScript,
    // A plain run with tools, started by startAgent: no patch marker (and so no TemporalChangeVersion upsert), its
    // tools described in a local activity, and its search attributes set at the start, so upserted once, at its end.
    proves: ({ events }) => {
      expect(markerIds(events)).toEqual([]);
      const upserts = events.flatMap((e) => Object.keys(e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {}));
      expect(upserts.filter((key) => key === 'TemporalChangeVersion')).toHaveLength(0);
      expect(upserts.filter((key) => key === 'AgentStatus')).toHaveLength(1);
      expect(events.at(-2)?.upsertWorkflowSearchAttributesEventAttributes).toBeTruthy(); // the end's, before the close
      const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
      expect(scheduled).not.toContain('describeTools');
      expect(localActivityTypes(events)).toEqual(['describeTools']);
    },
  },
  { name: 'step-cap-summary', script: loopForever, settings: { maxSteps: 3 } },
  {
    name: 'approval',
    script: [reply([toolUse('calculator', { expression: '2 + 2' })]), reply([text('4')])],
    settings: { approve: ['calculator'] },
    drive: async (h, id) => {
      await statusUntil(h, id, (v) => v.pendingApprovals.length === 1);
      await approveToolCall(h.env.client, id);
    },
  },
  {
    name: 'chat',
    script: [reply([text('Hello.')]), reply([text('Goodbye.')])],
    settings: { chat: true },
    drive: async (h, id) => {
      await expect.poll(async () => {
        const s = await getStatus(h.env.client, id);
        return s.live && s.view.waitingForMessage;
      }, { timeout: 10_000 }).toBe(true);
      await sendFollowUp(h.env.client, id, 'and now?');
      await expect.poll(async () => {
        const s = await getStatus(h.env.client, id);
        return s.live && s.view.waitingForMessage && s.view.steps === 2;
      }, { timeout: 10_000 }).toBe(true);
      await closeChatRun(h.env.client, id);
    },
  },
  {
    name: 'deadline',
    script: [{ ...reply([text('slow')]), delayMs: 5000 }],
    settings: { deadlineMs: 1000 },
    proves: ({ events, result }) => {
      expect(result?.guard).toBe('deadline');
      // The stop waited for the cancelled model call, so it closed as cancelled before the run did.
      expect(has(events, 'activityTaskCanceledEventAttributes')).toBe(true);
    },
  },
  { name: 'failed-401', script: [apiError(401, 'authentication_error', 'invalid x-api-key')] },
  {
    name: 'output-schema',
    script: [reply([toolUse('submit_answer', { answer: 42 })]), reply([text('done')])],
    settings: { outputSchema: { type: 'number' } },
  },
  // The run that continues as new (its history ends with the continue-as-new command) and the last run of the
  // same job (it starts from the carried state).
  {
    name: 'continue-as-new',
    script: threeSteps,
    settings: { continueAsNewAfterSteps: 1 },
    run: 'first',
    proves: ({ events }) => {
      expect(events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    },
  },
  {
    name: 'continue-as-new-carried',
    script: threeSteps,
    settings: { continueAsNewAfterSteps: 1 },
    proves: ({ input, result }) => {
      expect(input.carried?.runsUsed).toBe(2);
      expect(input.task).toBe(''); // carried once, as the transcript's first message
      expect(input.carried?.messages[0].content).toBe('replay fixture: continue-as-new-carried');
      expect(result).toMatchObject({ status: 'completed', runsUsed: 3 });
    },
  },
  {
    // A user's cancel while the model call is in flight: the run waits for the call to acknowledge.
    name: 'cancel',
    script: [{ ...reply([text('never sent')]), hold: true }],
    drive: async (h, id) => {
      await expect.poll(() => h.model.requests.length, { timeout: 15_000 }).toBe(1);
      await cancelRun(h.env.client, id);
    },
    proves: ({ events, result }) => {
      expect(result?.status).toBe('cancelled');
      expect(has(events, 'activityTaskCanceledEventAttributes')).toBe(true);
    },
  },
  { name: 'budget', script: threeSteps, settings: { budgetTokens: 1 }, proves: ({ result }) => expect(result?.guard).toBe('budget') },
  {
    name: 'repetition-summary',
    script: repeatForever,
    proves: ({ result }) => expect(result).toMatchObject({ guard: 'repetition', text: 'Partial: the same call kept coming back.' }),
  },
  {
    name: 'error-streak-summary',
    script: failForever,
    proves: ({ result }) => expect(result).toMatchObject({ guard: 'error_streak', text: 'Partial: the calculator kept failing.' }),
  },
  {
    name: 'deny',
    script: [reply([toolUse('calculator', { expression: '2 + 2' })]), reply([text('Denied, so no answer.')])],
    settings: { approve: ['calculator'] },
    drive: async (h, id) => {
      await statusUntil(h, id, (v) => v.pendingApprovals.length === 1);
      await denyToolCall(h.env.client, id, undefined, 'not today');
    },
    proves: ({ events, result }) => {
      expect(has(events, 'workflowExecutionUpdateAcceptedEventAttributes')).toBe(true);
      expect(events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runTool')).toEqual([]);
      expect(result?.status).toBe('completed');
    },
  },
  {
    // A follow-up sent while the model call is in flight: it joins the tool results of that turn.
    name: 'follow-up',
    script: [{ ...reply([toolUse('calculator', { expression: '1 + 1' })]), delayMs: 1500 }, reply([text('2; and hello.')])],
    drive: async (h, id) => {
      await expect.poll(() => h.model.requests.length, { timeout: 15_000 }).toBe(1);
      await sendFollowUp(h.env.client, id, 'also, say hello');
    },
    proves: ({ events, result }) => {
      expect(has(events, 'workflowExecutionUpdateAcceptedEventAttributes')).toBe(true);
      expect(result).toMatchObject({ status: 'completed', steps: 2 });
    },
  },
  {
    // The recorded run is the resumed one (of a run the step cap stopped without a summary).
    name: 'resume',
    script: threeSteps,
    settings: { maxSteps: 1, summaryOn: [] },
    drive: async (h, id) => {
      expect((await getAgentResult(h.env.client, id)).guard).toBe('max_steps');
      await resumeAgent(h.env.client, id, { moreSteps: 5, taskQueue: h.taskQueue });
    },
    proves: ({ input, result }) => {
      expect(input.resumedFrom).toBeTruthy();
      expect(result).toMatchObject({ status: 'completed', text: '42', steps: 3 });
    },
  },
  {
    // MCP tools: the definitions recorded once at the start (describeTools).
    name: 'mcp-tools',
    script: [reply([toolUse('fx__echo', { text: 'hi' })]), reply([text('echoed')])],
    settings: { tools: ['fx__*'] },
    mcpServers: { fx: stdioFixture() },
    proves: ({ events, result }) => {
      const activities = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
      expect(activities).toEqual(['describeTools', 'callModel', 'runTool', 'callModel']);
      expect(result).toMatchObject({ status: 'completed', text: 'echoed', toolCalls: 1 });
    },
  },
  {
    // An MCP elicitation held as a question: the call stops with it, the answer comes by
    // update, and the call is made again with the answer recorded for the server's repeated request.
    name: 'mcp-elicitation',
    script: [reply([toolUse('fx__ask', { job: 'sync' })]), reply([text('asked')])],
    settings: { tools: ['fx__*'] },
    mcpServers: { fx: stdioFixture({ args: ['--elicit'] }) },
    drive: async (h, id) => {
      await statusUntil(h, id, (v) => (v.pendingQuestions?.length ?? 0) === 1);
      await answerElicitation(h.env.client, id, { action: 'accept', content: { region: 'us' } });
    },
    proves: ({ events, result }) => {
      const activities = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
      expect(activities).toEqual(['describeTools', 'callModel', 'runTool', 'runTool', 'callModel']);
      expect(has(events, 'workflowExecutionUpdateAcceptedEventAttributes')).toBe(true);
      expect(result).toMatchObject({ status: 'completed', text: 'asked', toolCalls: 1 });
    },
  },
  {
    // Fast turns: progress-only search attribute changes are throttled, status changes are not.
    name: 'throttled-search-attributes',
    script: threeSteps,
    proves: ({ events }) => {
      // Three turns of progress and no upsert for them: the run started with its attributes and upserts at its end.
      expect(events.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.AgentStatus)).toHaveLength(1);
    },
  },
  {
    // Tool call policies: recorded at the start, a call scheduled with its tool's
    // timeout, which it outlives: the model gets an is_error result and the run goes on.
    name: 'tool-call-policies',
    tools: [timedTool as AgentTool],
    script: [reply([toolUse('slow_build', {})]), reply([text('it timed out')])],
    settings: { tools: ['slow_build'] },
    proves: ({ events, result }) => {
      const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes ?? []);
      expect(localActivityTypes(events)).toEqual(['describeTools']);
      expect(scheduled.map((a) => a.activityType?.name)).toEqual(['callModel', 'runTool', 'callModel']);
      expect(Number(scheduled[1].startToCloseTimeout?.seconds)).toBe(2);
      expect(events.some((e) => e.activityTaskTimedOutEventAttributes)).toBe(true);
      expect(result).toMatchObject({ status: 'completed', text: 'it timed out' });
    },
  },
  {
    // A fast tool's calls as local activities: markers, no runTool activity.
    name: 'fast-tools',
    tools: [fastAdd as AgentTool],
    script: [reply([toolUse('fast_add', { a: 2, b: 3 })]), reply([toolUse('fast_add', { a: 5, b: 1 })]), reply([text('6')])],
    settings: { tools: ['fast_add'] },
    proves: ({ events, result }) => {
      const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes ?? []);
      expect(scheduled.map((a) => a.activityType?.name)).toEqual(['callModel', 'callModel', 'callModel']);
      expect(localActivityTypes(events)).toEqual(['describeTools', 'runTool', 'runTool']);
      expect(result).toMatchObject({ status: 'completed', text: '6', toolCalls: 2 });
    },
  },
  {
    // A fast tool's call that fails for good: its failure is the model's is_error result, and the run goes on.
    name: 'fast-tool-failed',
    tools: [fastFailing as AgentTool],
    script: [reply([toolUse('fast_write', { path: '/tmp/x' })]), reply([text('the disk is full')])],
    settings: { tools: ['fast_write'] },
    proves: ({ events, result }) => {
      expect(localActivityTypes(events)).toEqual(['describeTools', 'runTool']);
      expect(events.filter((e) => e.markerRecordedEventAttributes?.failure)).toHaveLength(1);
      expect(result).toMatchObject({ status: 'completed', text: 'the disk is full', toolCalls: 1 });
    },
  },
  {
    // A child whose final answer spends the parent's budget: the parent cancels the sibling still running and stops.
    name: 'sub-agent-over-budget',
    agents: {
      researcher: { description: 'Researches one question.', system: 'You are the researcher.', tools: ['calculator'] },
    },
    settings: { tools: ['agent__researcher'], budgetTokens: 10_000, heartbeatTimeoutMs: 2_000 },
    script: (req, turn) => {
      const system = typeof req.system === 'string' ? req.system : '';
      if (system.includes('researcher')) {
        if (JSON.stringify(req.messages).includes('big')) return { ...reply([text('A big answer.')]), usage: { input_tokens: 10_000, output_tokens: 0 } };
        return { ...reply([text('never')]), hold: true };
      }
      if (turn === 0) return { ...reply([toolUse('agent__researcher', { task: 'big' }), toolUse('agent__researcher', { task: 'small' })]), usage: { input_tokens: 100, output_tokens: 0 } };
      return reply([text('done')]);
    },
    proves: ({ events, result }) => {
      expect(events.filter((e) => e.childWorkflowExecutionCompletedEventAttributes)).toHaveLength(2);
      expect(result).toMatchObject({ status: 'stopped', guard: 'budget' });
    },
  },
  {
    // A call its tool completes later (`completeLater()`), completed from outside by its token.
    name: 'complete-later',
    tools: [outsideJob as AgentTool],
    script: [reply([toolUse('outside_job', {})]), reply([text('the job reported back')])],
    settings: { tools: ['outside_job'] },
    drive: async (h) => {
      await expect.poll(() => completionTokens.length, { timeout: 15_000 }).toBeGreaterThan(0);
      await completeToolCall(h.env.client, completionTokens.at(-1)!, 'job 7 done');
    },
    proves: ({ events, result }) => {
      const tool = events.flatMap((e) => e.activityTaskScheduledEventAttributes ?? []).find((a) => a.activityType?.name === 'runTool');
      expect(Number(tool?.heartbeatTimeout?.seconds ?? 0)).toBe(0); // none: nothing beats while it waits
      expect(result).toMatchObject({ status: 'completed', text: 'the job reported back', toolCalls: 1 });
    },
  },
  {
    // The run's settings named by digest in every model call's input.
    name: 'model-settings-by-digest',
    script: threeSteps,
    settings: { system: 'You are terse.', effort: 'low' },
    proves: ({ events }) => {
      const modelInputs = events.flatMap((e) => {
        const a = e.activityTaskScheduledEventAttributes;
        return a?.activityType?.name === 'callModel' ? [defaultPayloadConverter.fromPayload<Record<string, unknown>>(a.input!.payloads![0])] : [];
      });
      expect(modelInputs).toHaveLength(3);
      for (const input of modelInputs) {
        expect(input).toMatchObject({ settings: expect.stringMatching(/^[0-9a-f]{32}$/) });
        expect(input).not.toHaveProperty('system');
      }
    },
  },
  {
    // An endpoint that refuses the task budget: the call is made again without it.
    name: 'refused-feature',
    script: threeSteps,
    settings: { budgetTokens: 50_000 },
    modelOptions: { taskBudget: false },
    proves: ({ events, result }) => {
      expect(events.filter((e) => e.activityTaskFailedEventAttributes)).toHaveLength(1);
      expect(result).toMatchObject({ status: 'completed', steps: 3 });
    },
  },
  {
    // Server-side compaction: a reply that begins with a compaction block, appended whole.
    name: 'compaction',
    script: [
      reply([text(`Notes: ${'n'.repeat(24_000)}`), toolUse('calculator', { expression: '6 * 7' })]),
      reply([text('Second.'), toolUse('calculator', { expression: '7 * 6' })]),
      reply([text('42')]),
    ],
    settings: { compactAt: 5_000 },
    proves: ({ events }) => {
      const replies = events.flatMap((e) => {
        const p = e.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
        return p ? [defaultPayloadConverter.fromPayload<{ content?: Array<{ type: string }> }>(p)] : [];
      });
      expect(replies.filter((r) => r.content?.[0]?.type === 'compaction')).toHaveLength(1);
    },
  },
  {
    // A slow stream, cut once mid-reply: the call is retried whole.
    name: 'streamed-call',
    script: [{ ...reply([text('One, two, three, four: a slow answer.')]), eventDelayMs: 200, cut: { afterEvents: 3 } }],
    proves: ({ events, result }) => {
      // The cut attempt failed and the call was retried whole.
      const attempts = events.flatMap((e) => e.activityTaskStartedEventAttributes?.attempt ?? []);
      expect(Math.max(...attempts)).toBe(2);
      expect(result).toMatchObject({ status: 'completed', text: 'One, two, three, four: a slow answer.' });
    },
  },
  {
    // Two agent__ calls in one turn: two child runs at once, their answers the tool results.
    name: 'sub-agents',
    agents: {
      researcher: { description: 'Researches one question.', system: 'You are the researcher.', tools: ['calculator'] },
    },
    settings: { tools: ['calculator', 'agent__researcher'] },
    script: (req, turn) => {
      const system = typeof req.system === 'string' ? req.system : '';
      if (system.includes('researcher')) return turn === 0 ? reply([toolUse('calculator', { expression: '6 * 7' })]) : reply([text('42')]);
      if (turn === 0) return reply([toolUse('agent__researcher', { task: 'question a' }), toolUse('agent__researcher', { task: 'question b' })]);
      return reply([text('Both answers are 42.')]);
    },
    proves: ({ events, result }) => {
      expect(events.filter((e) => e.childWorkflowExecutionCompletedEventAttributes)).toHaveLength(2);
      expect(events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'subAgentReport').length).toBeGreaterThan(0);
      expect(result).toMatchObject({ status: 'completed', text: 'Both answers are 42.' });
    },
  },
  {
    // A versioned run (Worker Deployment version, pinned) continuing as new: the task that continues reports
    // AUTO_UPGRADE and the command asks for it, so the next run starts on the current version.
    name: 'upgrade-on-continue-as-new',
    script: threeSteps,
    settings: { continueAsNewAfterSteps: 1 },
    deployment: true,
    run: 'first',
    proves: ({ events }) => {
      // The worker said it polls with versioning on (a local activity: its marker).
      expect(events.some((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toBe(true);
      const completed = events.flatMap((e) => e.workflowTaskCompletedEventAttributes ?? []);
      expect(completed[0].deploymentVersion?.buildId).toBe('v1');
      expect(completed.at(-1)?.versioningBehavior).toBe(temporalEnums.VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE);
      expect(completed[0].versioningBehavior).toBe(temporalEnums.VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);
      expect(events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    },
  },
  {
    // A run started with a priority and fairness key: every activity scheduled with them.
    name: 'task-priority',
    script: threeSteps,
    priority: { priorityKey: 1, fairnessKey: 'tenant-a' },
    proves: ({ events }) => {
      const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes ?? []);
      expect(scheduled.length).toBeGreaterThan(0);
      for (const a of scheduled) expect(a.priority).toMatchObject({ priorityKey: 1, fairnessKey: 'tenant-a' });
    },
  },
  {
    // A run with a webhook: approval.needed delivered while the call waits, then run.completed before it closes.
    name: 'webhooks',
    script: [reply([toolUse('calculator', { expression: '2 + 2' })]), reply([text('4')])],
    settings: { approve: ['calculator'] },
    webhookReceiver: true,
    drive: async (h, id) => {
      await statusUntil(h, id, (v) => v.pendingApprovals.length === 1);
      await approveToolCall(h.env.client, id);
    },
    proves: ({ events, result }) => {
      const deliveries = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverWebhook');
      expect(deliveries).toHaveLength(2);
      expect(result).toMatchObject({ status: 'completed', text: '4' });
    },
  },
  {
    // A traced run: OpenTelemetry's workflow interceptors carry its trace in every activity's headers, and their async
    // wrappers move an update's completion (the approval) a few microtasks later than an untraced run's.
    name: 'traced-approval',
    traced: true,
    script: [reply([toolUse('calculator', { expression: '2 + 2' })]), reply([text('4')])],
    settings: { approve: ['calculator'] },
    drive: async (h, id) => {
      await statusUntil(h, id, (v) => v.pendingApprovals.length === 1);
      await approveToolCall(h.env.client, id);
    },
    proves: ({ events, result }) => {
      const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes ?? []);
      expect(scheduled.length).toBeGreaterThan(0);
      for (const a of scheduled) expect(Object.keys(a.header?.fields ?? {})).toContain('_tracer-data');
      expect(events.some((e) => e.workflowExecutionUpdateCompletedEventAttributes)).toBe(true);
      expect(result).toMatchObject({ status: 'completed', text: '4' });
    },
  },
  {
    // Model calls are activities on the run's own queue (taken eagerly by the worker that scheduled them).
    name: 'model-calls',
    script: threeSteps,
    proves: ({ events, result }) => {
      const runQueue = events[0]?.workflowExecutionStartedEventAttributes?.taskQueue?.name;
      const models = events.flatMap((e) => e.activityTaskScheduledEventAttributes ?? []).filter((a) => a.activityType?.name === 'callModel');
      expect(models).toHaveLength(3);
      for (const a of models) expect(a.taskQueue?.name).toBe(runQueue);
      expect(result).toMatchObject({ status: 'completed', text: '42' });
    },
  },
  {
    // Model calls as local activities (`localModelCalls`): markers, no callModel activity.
    name: 'local-model-calls',
    script: threeSteps,
    settings: { localModelCalls: true },
    proves: ({ events, result }) => {
      expect(events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [])).not.toContain('callModel');
      expect(localActivityTypes(events).filter((t) => t === 'callModel')).toHaveLength(3);
      expect(result).toMatchObject({ status: 'completed', text: '42', steps: 3 });
    },
  },
  {
    // Batch mode (`modelCalls: 'batch'`): each call a submit activity, then durable timers and polls as local
    // activities; no callModel, the replies at the batch price.
    name: 'batch-model-calls',
    script: threeSteps,
    settings: { modelCalls: 'batch' },
    proves: ({ events, result }) => {
      const scheduled = events.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
      expect(scheduled).not.toContain('callModel');
      expect(scheduled.filter((t) => t === 'submitModelBatchRequest')).toHaveLength(3);
      expect(localActivityTypes(events)).toContain('pollModelBatchRequest');
      expect(has(events, 'timerStartedEventAttributes')).toBe(true);
      expect(result).toMatchObject({ status: 'completed', text: '42', steps: 3 });
    },
  },
  {
    // Settings the check refuses (a negative heartbeat timeout), started around startAgent: the run fails at once.
    name: 'invalid-settings',
    script: [reply([text('never asked')])],
    settings: { heartbeatTimeoutMs: -1 },
    startAround: true,
    proves: ({ events }) => {
      expect(has(events, 'activityTaskScheduledEventAttributes')).toBe(false);
      const failed = events.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
      expect(failed?.applicationFailureInfo?.type).toBe('InvalidSettingsError');
      expect(failed?.applicationFailureInfo?.nonRetryable).toBe(true);
    },
  },
];

async function startTraced(h: AgentHarness, task: string, settings: Partial<AgentSettings> = {}): Promise<string> {
  const client = new Client({ connection: h.env.client.connection, dataConverter: h.env.dataConverter, interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } });
  const started = await startAgent(client, { task, settings: defaultSettings({ tools: ['calculator', 'web_search'], ...settings }), taskQueue: h.taskQueue });
  return started.workflowId;
}

async function startAround(h: AgentHarness, task: string, settings: Partial<AgentSettings> = {}): Promise<string> {
  const workflowId = `replay-${randomUUID()}`;
  const input: AgentInput = { task, settings: defaultSettings({ tools: ['calculator'], ...settings }) };
  await h.env.client.workflow.start(AGENT_WORKFLOW, { workflowId, taskQueue: h.taskQueue, args: [input] });
  return workflowId;
}

// `RECORD_HISTORIES=1 npx vitest run test/durability/replay.test.ts` records the fixtures that are missing from
// real runs; `RECORD_HISTORIES=overwrite` records them all again. From 1.0 on, keep the old ones: they hold the
// paths that runs recorded before a `patched()` change take (see docs/contributing.md, "Replay fixtures and `patched()`").
describe.runIf(RECORD)('recording histories', () => {
  const wanted = SCENARIOS.filter((s) => process.env.RECORD_HISTORIES === 'overwrite' || !existsSync(`${DIR}${s.name}.json`));
  it.each(wanted)('records $name', async (scenario) => {
    mkdirSync(DIR, { recursive: true });
    const deploymentName = `replay-${randomUUID().slice(0, 8)}`;
    const workerOptions = scenario.deployment
      ? { workerDeploymentOptions: { useWorkerVersioning: true, version: { deploymentName, buildId: 'v1' }, defaultVersioningBehavior: 'PINNED' } as const }
      : undefined;
    const receiver = scenario.webhookReceiver ? await startWebhookReceiver() : undefined;
    const savedSecret = process.env.DURABLE_AGENT_WEBHOOK_SECRET;
    if (receiver) process.env.DURABLE_AGENT_WEBHOOK_SECRET = 'replay-fixture-secret';
    const settings = receiver ? { ...scenario.settings, webhooks: [receiver.url] } : scenario.settings;
    // Short batch windows and polls, for the batch-mode scenario.
    const modelBatches = { windowMs: 100, pollMs: 100, maxPollMs: 200 };
    const options = { script: scenario.script, mcpServers: scenario.mcpServers, tools: scenario.tools, modelOptions: scenario.modelOptions, agents: scenario.agents, workerOptions, modelBatches };
    await withAgent(env, options, async (h) => {
      if (scenario.deployment) await setCurrentVersion(h.env.client, deploymentName, 'v1');
      const task = `replay fixture: ${scenario.name}`;
      const id = scenario.startAround
        ? await startAround(h, task, settings)
        : scenario.priority
          ? (await startAgent(h.env.client, { task, settings: defaultSettings({ tools: ['calculator', 'web_search'], ...settings }), taskQueue: h.taskQueue, priority: scenario.priority })).workflowId
          : scenario.traced
            ? await startTraced(h, task, settings)
            : await h.start(task, settings);
      await scenario.drive?.(h, id);
      await getAgentResult(h.env.client, id);
      let history = await h.env.client.workflow.getHandle(id).fetchHistory();
      if (scenario.run === 'first') {
        const firstRunId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.firstExecutionRunId;
        expect(firstRunId).toBeTruthy();
        history = await h.env.client.workflow.getHandle(id, firstRunId!).fetchHistory();
      }
      writeFileSync(`${DIR}${scenario.name}.json`, historyToJSON(history));
    }).finally(async () => {
      await receiver?.close();
      if (receiver && savedSecret === undefined) delete process.env.DURABLE_AGENT_WEBHOOK_SECRET;
      else if (receiver) process.env.DURABLE_AGENT_WEBHOOK_SECRET = savedSecret;
    });
  });
});

describe.skipIf(RECORD)('replay of recorded histories', () => {
  const jsonIn = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.json'));
  const files = GENERATIONS.flatMap((dir) => jsonIn(dir).map((f) => `${dir.slice(ROOT_DIR.length)}${f}`));

  it('has a committed history for every scenario in the newest generation', () => {
    expect(jsonIn(DIR).sort()).toEqual(SCENARIOS.map((s) => `${s.name}.json`).sort());
  });

  it('the 1.0 baseline records no patch marker: the workflow code has no patched() branch yet', () => {
    const ids = jsonIn(ROOT_DIR).flatMap((f) => markerIds(historyFromJSON(JSON.parse(readFileSync(`${ROOT_DIR}${f}`, 'utf8'))).events ?? []));
    expect(ids).toEqual([]);
  });

  it.each(SCENARIOS.filter((s) => s.proves))('the $name fixture records the path it is named for', (scenario) => {
    const history = historyFromJSON(JSON.parse(readFileSync(`${DIR}${scenario.name}.json`, 'utf8')));
    scenario.proves!(recorded(history));
  });

  it.each(files)('replays %s without non-determinism', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(`${ROOT_DIR}${file}`, 'utf8')));
    // The same data converter as the worker's, as every replay must use.
    await Worker.runReplayHistory(
      // The telemetry sinks, as a worker's: the approvals count is reported while replaying too.
      { workflowBundle: { codePath: inject('workflowBundlePath') }, dataConverter: agentDataConverter(), sinks: ignoredTelemetrySinks },
      history,
      recordedWorkflowId(history) ?? file,
    );
  });
});
