// Reading runs with no worker: each run here is driven by a real worker, which is then stopped; what the
// client reads afterwards comes from the server alone (the history, replayed in this process) and must equal
// what the live queries answered while the worker was up.
import { withRoundedCosts } from '../../src/core/pricing.js';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import {
  AGENT_WORKFLOW,
  approveToolCall,
  closeChatRun,
  defaultSettings,
  denyToolCall,
  getAgentResult,
  getStatus,
  getTranscript,
  listRuns,
  sendFollowUp,
} from '../../src/client/index.js';
import { readRunFromHistory } from '../../src/client/history.js';
import type { AgentInput, AgentSettings, AgentStatusView, MessageParam, RunState } from '../../src/core/types.js';
import { findTemporalCli } from '../../src/devserver/find-temporal.js';
import { franceDemoScript, reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { agentStatus, runState, transcriptPage } from '../../src/workflows/definitions.js';
import { agentDataConverter } from '../../src/codec/data-converter.js';
import { eventually, openTestEnv, useTestEnv, withAgent, type AgentHarness } from '../helpers/harness.js';
import { testServerAddress } from '../helpers/test-server.js';

const env = useTestEnv();
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface LiveAnswers {
  view: AgentStatusView;
  messages: MessageParam[];
  state: Omit<RunState, 'messages'>;
}

/** What a worker answers for the run (its current run, across continue-as-new). */
async function liveAnswers(client: Client, workflowId: string): Promise<LiveAnswers> {
  const handle = client.workflow.getHandle(workflowId);
  const view = await handle.query(agentStatus);
  const state = await handle.query(runState);
  const messages: MessageParam[] = [];
  for (;;) {
    const page = await handle.query(transcriptPage, messages.length, Number.MAX_SAFE_INTEGER);
    messages.push(...page.messages);
    if (messages.length >= page.total || page.messages.length === 0) break;
  }
  return { view, messages, state };
}

async function waitForStatus(h: AgentHarness, id: string, ok: (v: AgentStatusView) => boolean): Promise<void> {
  await eventually(
    () => h.env.client.workflow.getHandle(id).query(agentStatus),
    ok,
    20_000,
  );
}

/** A query timeout no test could wait out. */
const NO_WORKER_WAIT_MS = 10 * 60_000;

const FRANCE = 'Search for the population of France and calculate what 15% of that number is';

interface Scenario {
  name: string;
  /** The task, when the script answers a particular one. */
  task?: string;
  script: Script;
  settings?: Partial<AgentSettings>;
  drive?: (h: AgentHarness, id: string) => Promise<void>;
  /** What makes the scenario the one it claims to be, checked on the live answers. */
  proves: (live: LiveAnswers) => void;
}

const loopForever: Script = (req, turn) =>
  req.tool_choice?.type === 'none'
    ? reply([text('Partial: still counting.')])
    : reply([text(`step ${turn}`), toolUse('calculator', { expression: `${turn} + 1` })]);

const SCENARIOS: Scenario[] = [
  {
    name: 'tool calls',
    task: FRANCE,
    script: franceDemoScript,
    proves: ({ view, messages }) => {
      expect(view.status).toBe('completed');
      expect(messages.filter((m) => m.role === 'assistant')).toHaveLength(3);
    },
  },
  {
    name: 'an approval and a denial with its reason',
    script: [
      reply([toolUse('calculator', { expression: '2 + 2' }), toolUse('web_search', { query: 'population of France' })]),
      reply([text('2 + 2 is 4; the search was denied.')]),
    ],
    settings: { approve: ['calculator', 'web_search'] },
    drive: async (h, id) => {
      await waitForStatus(h, id, (v) => v.pendingApprovals.length === 2);
      const [calc, search] = (await h.env.client.workflow.getHandle(id).query(agentStatus)).pendingApprovals;
      await approveToolCall(h.env.client, id, calc.toolUseId);
      await denyToolCall(h.env.client, id, search.toolUseId, 'no web access today');
    },
    proves: ({ messages }) => expect(JSON.stringify(messages)).toContain('no web access today'),
  },
  {
    name: 'chat follow-ups',
    script: [reply([text('Hello.')]), reply([text('It is 4.')]), reply([text('Bye.')])],
    settings: { chat: true },
    drive: async (h, id) => {
      await waitForStatus(h, id, (v) => v.waitingForMessage && v.steps === 1);
      await sendFollowUp(h.env.client, id, 'what is 2 + 2?');
      await waitForStatus(h, id, (v) => v.waitingForMessage && v.steps === 2);
      await sendFollowUp(h.env.client, id, 'thanks');
      await waitForStatus(h, id, (v) => v.waitingForMessage && v.steps === 3);
      await closeChatRun(h.env.client, id);
    },
    proves: ({ messages }) => expect(messages.filter((m) => m.role === 'user')).toHaveLength(3),
  },
  {
    name: 'context clearing',
    script: [
      reply([toolUse('calculator', { expression: '1 + 1' })]),
      reply([toolUse('calculator', { expression: '2 + 2' })]),
      reply([toolUse('calculator', { expression: '3 + 3' })]),
      reply([toolUse('calculator', { expression: '4 + 4' })]),
      reply([text('done')]),
    ],
    settings: { contextClearAtTokens: 1 },
    proves: ({ view }) => expect(view.clearedUpTo).toBeGreaterThan(0),
  },
  {
    name: 'a summary after the step-cap guard',
    script: loopForever,
    settings: { maxSteps: 3 },
    proves: ({ view, messages }) => {
      expect(view.guard).toBe('max_steps');
      expect(view.lastText).toBe('Partial: still counting.');
      expect(JSON.stringify(messages.at(-2))).toContain('stopped by the harness');
    },
  },
  {
    name: 'continue-as-new after every model call',
    task: FRANCE,
    script: franceDemoScript,
    settings: { continueAsNewAfterSteps: 1 },
    proves: ({ view }) => expect(view.runsUsed).toBe(3),
  },
];

describe('a run read from its history, with no worker, equals what the live queries answered', () => {
  it.each(SCENARIOS)('$name', async (scenario) => {
    const { id, live } = await withAgent(env, { script: scenario.script }, async (h) => {
      const id = await h.start(scenario.task ?? `history: ${scenario.name}`, scenario.settings);
      await scenario.drive?.(h, id);
      await getAgentResult(h.env.client, id);
      return { id, live: await liveAnswers(h.env.client, id) };
    });
    scenario.proves(live);
    // The worker has stopped: from here on, only the server answers.
    const fromHistory = await readRunFromHistory(env.client, id);
    expect(fromHistory.messages).toEqual(live.messages);
    expect(fromHistory.view).toEqual(live.view);
    expect(fromHistory.state).toEqual(live.state);
    // A closed run is read without asking for a worker: were a query tried first, these calls would wait out
    // their ten-minute query timeout and the test its own 60 s one.
    expect(await getTranscript(env.client, id, NO_WORKER_WAIT_MS)).toEqual(live.messages);
    const status = await getStatus(env.client, id, NO_WORKER_WAIT_MS);
    expect(status.live).toBe(false);
    // `status` gives money to the micro-dollar (the workflow's own view keeps its running total as it adds up).
    expect(status.view).toEqual(withRoundedCosts(live.view));
  });
});

describe('with encrypted payloads (a payload codec on the client)', () => {
  it('reads the transcript of a closed run from its history through the client\'s codec', async () => {
    const encrypted = await openTestEnv(agentDataConverter({ AGENT_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` }));
    try {
      const { id, live } = await withAgent(encrypted, { script: franceDemoScript }, async (h) => {
        const id = await h.start(FRANCE);
        await getAgentResult(h.env.client, id);
        return { id, live: await liveAnswers(h.env.client, id) };
      });
      const raw = JSON.stringify(await encrypted.client.workflow.getHandle(id).fetchHistory());
      expect(raw).not.toContain('population of France');
      expect(await getTranscript(encrypted.client, id)).toEqual(live.messages);
      expect(JSON.stringify(live.messages)).toContain('population of France');
    } finally {
      await encrypted.close();
    }
  });
});

describe('a process that only reads runs', () => {
  it('reads a closed run’s transcript with no worker state lines on its output (only warnings and errors would show)', async () => {
    const id = await withAgent(env, { script: [reply([text('done')])] }, async (h) => {
      const id = await h.start('a run to read from a client-only process');
      await getAgentResult(h.env.client, id);
      return id;
    });
    const script = `
      import { Client, Connection } from '@temporalio/client';
      import { getTranscript } from './dist/index.js';
      const client = new Client({ connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS }) });
      const messages = await getTranscript(client, ${JSON.stringify(id)});
      console.log(JSON.stringify(messages.map((m) => m.role)));
      await client.connection.close();`;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      env: { ...process.env, TEMPORAL_ADDRESS: testServerAddress() },
    });
    expect(stdout.trim()).toBe('["user","assistant"]');
    expect(stderr).not.toMatch(/INFO|Worker state changed/);
  });
});

describe('runs the server closed', () => {
  const temporal = async (...args: string[]) => {
    const cli = await findTemporalCli({});
    await promisify(execFile)(cli, [...args, '--address', testServerAddress(), '--namespace', 'default']);
  };
  /** A run that made one model call and one tool call, and is in its second model call, which never answers. */
  const stuckScript: Script = [
    reply([text('Computing first.'), toolUse('calculator', { expression: '6 * 7' })]),
    { ...reply([text('never sent')]), hold: true },
  ];
  const stuckAtStepTwo = (h: AgentHarness, id: string) => waitForStatus(h, id, (v) => v.toolCalls === 1 && v.messages === 3);

  it('a terminated run reads as terminated, with the steps, usage and last text its history holds and the operator\'s reason', async () => {
    const { id, usage } = await withAgent(env, { script: stuckScript }, async (h) => {
      const id = await h.start('to be terminated');
      await stuckAtStepTwo(h, id);
      const usage = (await h.env.client.workflow.getHandle(id).query(agentStatus)).usage;
      await temporal('workflow', 'terminate', '--workflow-id', id, '--reason', 'runaway agent, stopped by ops');
      return { id, usage };
    });
    const status = await getStatus(env.client, id);
    expect(status.live).toBe(false);
    if (status.live) return;
    expect(status.executionStatus).toBe('TERMINATED');
    expect(status.view).toMatchObject({ status: 'terminated', steps: 1, toolCalls: 1, usage, lastText: 'Computing first.', inFlight: [] });
    expect(status.endedByServer).toMatchObject({ status: 'terminated', reason: 'runaway agent, stopped by ops' });

    const result = await getAgentResult(env.client, id);
    expect(result).toMatchObject({
      status: 'terminated',
      steps: 1,
      toolCalls: 1,
      usage,
      text: 'Computing first.',
      stopReason: 'tool_use',
      partial: true,
    });
    expect(result.costUsd).toBeGreaterThan(0);
    expect(result.error).toMatch(/terminated by an operator: runaway agent, stopped by ops/);
    expect((await getTranscript(env.client, id)).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
  });

  it('a run closed by its workflow timeout reads as timed_out, naming the timeout', async () => {
    const { id } = await withAgent(env, { script: stuckScript }, async (h) => {
      const input: AgentInput = { task: 'to time out', settings: defaultSettings({ tools: ['calculator'] }) };
      const handle = await h.env.client.workflow.start(AGENT_WORKFLOW, {
        workflowId: `history-timeout-${Date.now()}`,
        taskQueue: h.taskQueue,
        args: [input],
        workflowRunTimeout: '4s',
      });
      await stuckAtStepTwo(h, handle.workflowId);
      await eventually(() => handle.describe(), (d) => d.status.name === 'TIMED_OUT', 20_000);
      return { id: handle.workflowId };
    });
    const result = await getAgentResult(env.client, id);
    expect(result).toMatchObject({ status: 'timed_out', steps: 1, toolCalls: 1, text: 'Computing first.' });
    expect(result.error).toMatch(/run timeout 4(\.0)?s/);
    const status = await getStatus(env.client, id);
    expect(status.view?.status).toBe('timed_out');
  });

  it('after `temporal workflow reset`, the id reads as the reset run, and list says which run is current', async () => {
    const { id, firstRunId } = await withAgent(env, { script: franceDemoScript }, async (h) => {
      const result = await h.run('to be reset');
      expect(result.status).toBe('completed');
      return { id: result.workflowId, firstRunId: result.runId };
    });
    // No worker: the reset run stays where the reset put it (back at its first workflow task).
    await temporal('workflow', 'reset', '--workflow-id', id, '--type', 'FirstWorkflowTask', '--reason', 'try again');
    const status = await getStatus(env.client, id, 500);
    expect(status.live).toBe(false);
    if (status.live) return;
    expect(status.runId).not.toBe(firstRunId);
    expect(status.executionStatus).toBe('RUNNING');
    expect(status.view).toMatchObject({ runId: status.runId, status: 'running', steps: 0 });
    expect(await getTranscript(env.client, id, 500)).toEqual([{ role: 'user', content: 'to be reset' }]);

    const runs = await eventually(
      () => listRuns(env.client, { limit: 1000 }),
      (rs) => rs.filter((r) => r.workflowId === id).length === 2,
      20_000,
    );
    const ofId = runs.filter((r) => r.workflowId === id);
    expect(ofId.find((r) => r.current)?.runId).toBe(status.runId);
    expect(ofId.find((r) => !r.current)?.runId).toBe(firstRunId);
    await env.client.workflow.getHandle(id).terminate('test cleanup');
  });
});
