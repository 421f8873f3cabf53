// Tools that run long: each tool's own timeout and retry policy, progress reported from inside a call, and calls
// completed from outside (`completeLater()`), against the real dev server and a real worker.
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { completeToolCall, getAgentResult, getStatus, ToolCompletionError } from '../../src/client/index.js';
import type { MessagesRequestBody } from '../../src/scripted/index.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { defineTool, type AgentTool } from '../../src/tools/types.js';
import { decodeCompletionToken, encodeCompletionToken } from '../../src/activities/completion-token.js';
import { eventually, lastToolResults, startRun, useSharedAgent, useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();

// The definitions of the tools the tests bring (each test's own code runs its calls).
const noInput = { type: 'object', properties: {} } as const;
const slowBuildDefinition = {
  name: 'slow_build',
  description: 'Builds slowly.',
  inputSchema: noInput,
  timeout: '1s',
  retry: { maximumAttempts: 2, initialInterval: '200ms' },
} as const;
const quickDefinition = { name: 'quick', description: 'q', inputSchema: noInput } as const;
const longDefinition = { name: 'long', description: 'l', inputSchema: noInput, timeout: '2h' } as const;
const buildDefinition = { name: 'build', description: 'Builds, reporting its progress.', inputSchema: noInput, timeout: '10m' } as const;
const humanTaskDefinition = { name: 'human_task', description: 'Asks a person.', inputSchema: noInput, completesLater: true } as const;
const sneakyDefinition = { name: 'sneaky', description: 'x', inputSchema: noInput } as const;
// One worker for the file's tests, but the one on a 1-slot worker.
const agents = useSharedAgent(env, {
  tools: [slowBuildDefinition, quickDefinition, longDefinition, buildDefinition, humanTaskDefinition, sneakyDefinition],
});


const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    });
  });

/** The summaries and start-to-close timeouts the run's runTool activities were scheduled with. */
async function scheduledToolCalls(client: Client, workflowId: string, runId?: string) {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const converter = client.options.loadedDataConverter;
  const calls = [];
  for (const e of history.events ?? []) {
    const a = e.activityTaskScheduledEventAttributes;
    if (a?.activityType?.name !== 'runTool') continue;
    const summary = e.userMetadata?.summary ? await converter.payloadConverter.fromPayload(e.userMetadata.summary) : undefined;
    calls.push({
      summary,
      startToCloseSeconds: Number(a.startToCloseTimeout?.seconds ?? 0),
      heartbeatSeconds: Number(a.heartbeatTimeout?.seconds ?? 0),
      maximumAttempts: a.retryPolicy?.maximumAttempts,
    });
  }
  return calls;
}

describe('per-tool call policy', () => {
  it("gives the model an is_error result naming the timeout and the attempt when a call outlives its tool's timeout, and the run goes on", async () => {
    const slow = defineTool({
      ...slowBuildDefinition,
      execute: async (_input, { signal }) => {
        await sleep(3_000, signal);
        return 'built';
      },
    });
    const script: Script = [reply([toolUse('slow_build', {})]), reply([text('the build timed out')])];
    await agents.with({ script, tools: [slow as AgentTool] }, async (h) => {
      const id = await startRun(h, 'build it', { tools: ['slow_build'] });
      const result = await getAgentResult(env.client, id);
      expect(result).toMatchObject({ status: 'completed', text: 'the build timed out' });
      const [toolResult] = lastToolResults(h.model.requests);
      expect(toolResult.is_error).toBe(true);
      expect(toolResult.content).toBe('Tool "slow_build" timed out after 1s on attempt 2 of 2: the call did not complete within its timeout');
      // The policy was the one the definition set, and the UI's summary says so (the server caps the heartbeat
      // timeout at the start-to-close timeout).
      expect(await scheduledToolCalls(env.client, id)).toEqual([
        { summary: 'slow_build({}) · timeout 1s · 2 attempts', startToCloseSeconds: 1, heartbeatSeconds: 1, maximumAttempts: 2 },
      ]);
    });
  });

  it("uses the run's --tool-timeout for tools that set none, and keeps a tool's own timeout over it", async () => {
    const quick = defineTool({ ...quickDefinition, execute: async () => 'ok' });
    const long = defineTool({ ...longDefinition, execute: async () => 'ok' });
    const script: Script = [reply([toolUse('quick', {}), toolUse('long', {})]), reply([text('both done')])];
    await agents.with({ script, tools: [quick as AgentTool, long as AgentTool] }, async (h) => {
      const id = await startRun(h, 'both', { tools: ['quick', 'long'], toolTimeoutMs: 20 * 60_000 });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed' });
      expect((await scheduledToolCalls(env.client, id)).map((c) => [c.summary, c.startToCloseSeconds])).toEqual([
        ['quick({}) · timeout 20m', 1200],
        ['long({}) · timeout 2h', 7200],
      ]);
    });
  });

  it('keeps the policies recorded at the start through continue-as-new: the next run asks for them no more', async () => {
    const long = defineTool({ ...longDefinition, execute: async () => 'ok' });
    const script: Script = [reply([toolUse('long', {})]), reply([toolUse('long', {})]), reply([text('twice')])];
    await agents.with({ script, tools: [long as AgentTool] }, async (h) => {
      const id = await startRun(h, 'twice', { tools: ['long'], continueAsNewAfterSteps: 1 });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'twice', runsUsed: 3 });
      // The latest run (after two continue-as-new) started from the carried policies: no describeTools.
      const history = await env.client.workflow.getHandle(id).fetchHistory();
      const scheduled = (history.events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
      expect(scheduled).toEqual(['callModel']);
      const first = history.events?.[0]?.workflowExecutionStartedEventAttributes?.firstExecutionRunId;
      const firstHistory = await env.client.workflow.getHandle(id, first!).fetchHistory();
      const second = firstHistory.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
      const secondHistory = await env.client.workflow.getHandle(id, second!).fetchHistory();
      expect((secondHistory.events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [])).toEqual(['callModel', 'runTool']);
      expect((await scheduledToolCalls(env.client, id, second!)).map((c) => c.startToCloseSeconds)).toEqual([7200]);
    });
  });
});

describe('progress from inside a call', () => {
  it("shows the tool's latest progress message, its attempt and its timeout in the run's status while it runs", async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const build = defineTool({
      ...buildDefinition,
      execute: async (_input, context) => {
        context.progress('compiling 120 files', 0.1);
        await sleep(500);
        context.progress('linking', 0.8);
        await released;
        return 'build 4711 passed';
      },
    });
    const script: Script = [reply([toolUse('build', {}, 'toolu_build')]), reply([text('built')])];
    await agents.with({ script, tools: [build as AgentTool] }, async (h) => {
      const id = await startRun(h, 'build it', { tools: ['build'] });
      const status = await eventually(
        () => getStatus(env.client, id),
        (s) => s.toolCalls[0]?.progress?.message === 'linking',
        10_000,
      );
      expect(status.toolCalls).toEqual([
        expect.objectContaining({ toolUseId: 'toolu_build', attempt: 1, maximumAttempts: 3, state: 'started', progress: expect.objectContaining({ message: 'linking', fraction: 0.8 }) }),
      ]);
      expect(status.view?.inFlight).toEqual([expect.objectContaining({ toolUseId: 'toolu_build', name: 'build', timeoutMs: 600_000 })]);
      release();
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'built' });
      // Progress rides in heartbeats: nothing of it is in history.
      const history = JSON.stringify((await env.client.workflow.getHandle(id).fetchHistory()).events);
      expect(history).not.toContain(Buffer.from('linking').toString('base64'));
    });
  });
});

describe('calls completed from outside', () => {
  it("holds no worker slot while it waits: a second run's tool call runs on a 1-slot worker meanwhile, then the outside completion finishes the first", async () => {
    const tokens: string[] = [];
    const ciJob = defineTool({
      name: 'ci_job',
      description: 'Starts a CI job; the CI system reports back.',
      inputSchema: { type: 'object', properties: {} },
      timeout: '10m',
      completesLater: true,
      execute: async (_input, context) => {
        tokens.push(context.completionToken);
        return context.completeLater();
      },
    });
    const echo = defineTool({
      name: 'echo',
      description: 'Echoes.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: async ({ text }) => `echo: ${text}`,
    });
    const script: Script = (body) => {
      const first = JSON.stringify(body.messages[0].content);
      if (body.messages.length === 1) return first.includes('ci') ? reply([toolUse('ci_job', {})]) : reply([toolUse('echo', { text: 'hi' })]);
      const [result] = (body.messages[body.messages.length - 1].content as Array<{ content: unknown }>);
      return reply([text(`got: ${JSON.stringify(result.content)}`)]);
    };
    await withAgent(
      env,
      { script, tools: [ciJob as AgentTool, echo as AgentTool], workerOptions: { maxConcurrentActivityTaskExecutions: 1 } },
      async (h) => {
        const waiting = await startRun(h, 'run the ci job', { tools: ['ci_job', 'echo'] });
        await eventually(async () => tokens.length, (n) => n === 1, 20_000);
        const status = await eventually(
          () => getStatus(env.client, waiting),
          (s) => s.toolCalls[0]?.waitingForCompletionSince !== undefined,
          10_000,
        );
        expect(status.view?.inFlight).toEqual([expect.objectContaining({ name: 'ci_job', completesLater: true, timeoutMs: 600_000 })]);
        // Nothing beats while it waits, so it is scheduled without a heartbeat timeout.
        expect(await scheduledToolCalls(env.client, waiting)).toEqual([
          { summary: 'ci_job({}) · timeout 10m · completed from outside', startToCloseSeconds: 600, heartbeatSeconds: 0, maximumAttempts: 3 },
        ]);

        // The one activity slot is free: another run's tool call runs and its run completes meanwhile.
        const other = await startRun(h, 'echo something', { tools: ['ci_job', 'echo'] });
        expect(await getAgentResult(env.client, other)).toMatchObject({ status: 'completed', text: 'got: "echo: hi"' });
        expect((await env.client.workflow.getHandle(waiting).describe()).status.name).toBe('RUNNING');

        const completed = await completeToolCall(env.client, tokens[0], 'CI job 17 passed');
        expect(completed.workflowId).toBe(waiting);
        expect(await getAgentResult(env.client, waiting)).toMatchObject({ status: 'completed', text: 'got: "CI job 17 passed"' });

        // Used once: the same token again is refused, with the reason.
        await expect(completeToolCall(env.client, tokens[0], 'again')).rejects.toThrow(ToolCompletionError);
        await expect(completeToolCall(env.client, tokens[0], 'again')).rejects.toThrow(/the run has ended \(completed\)/);
        await expect(completeToolCall(env.client, 'not-a-token', 'x')).rejects.toThrow(/not a completion token/);
      },
    );
  });

  it('gives the model an is_error result for an outside completion that sends an error, and refuses a token already used on a running run', async () => {
    const tokens: string[] = [];
    const approvalTask = defineTool({
      ...humanTaskDefinition,
      execute: async (_input, context) => {
        tokens.push(context.completionToken);
        return context.completeLater();
      },
    });
    const script: Script = [
      reply([toolUse('human_task', {})]),
      reply([toolUse('human_task', {})]),
      reply([text('done')]),
    ];
    await agents.with({ script, tools: [approvalTask as AgentTool] }, async (h) => {
      const id = await startRun(h, 'ask twice', { tools: ['human_task'] });
      await eventually(async () => tokens.length, (n) => n === 1, 20_000);
      await completeToolCall(env.client, tokens[0], { content: 'the person said no', isError: true });
      await eventually(async () => tokens.length, (n) => n === 2, 20_000);
      await expect(completeToolCall(env.client, tokens[0], 'late')).rejects.toThrow(/the call is no longer waiting: it was completed already, or timed out/);
      await completeToolCall(env.client, tokens[1], 'yes');
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'done' });
      const messages = (h.model.requests[h.model.requests.length - 1].body as MessagesRequestBody).messages;
      expect(messages[2].content).toEqual([expect.objectContaining({ type: 'tool_result', is_error: true, content: 'the person said no' })]);
    });
  });

  it("refuses a completion from a client of another namespace as a ToolCompletionError naming the run's namespace, and a damaged token as not one; the call still waits", async () => {
    const tokens: string[] = [];
    const approvalTask = defineTool({
      ...humanTaskDefinition,
      execute: async (_input, context) => {
        tokens.push(context.completionToken);
        return context.completeLater();
      },
    });
    const script: Script = [reply([toolUse('human_task', {})]), reply([text('done')])];
    await agents.with({ script, tools: [approvalTask as AgentTool] }, async (h) => {
      const id = await startRun(h, 'ask', { tools: ['human_task'] });
      await eventually(async () => tokens.length, (n) => n === 1, 20_000);
      // A CI job completing the call with the default namespace while the run is in another one.
      const namespace = `elsewhere-${randomUUID().slice(0, 8)}`;
      await env.client.connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
      const elsewhere = new Client({ connection: env.client.connection, namespace });
      const wrongNamespace = await completeToolCall(elsewhere, tokens[0], 'yes').catch((e: Error) => e);
      expect(wrongNamespace).toBeInstanceOf(ToolCompletionError);
      expect((wrongNamespace as Error).message).toBe(
        `tool call ${decodeCompletionToken(tokens[0])!.toolUseId} of ${id}: the run is in namespace "default", not in "${namespace}" as this client: ` +
          'complete it with a client of namespace "default" (the CLI: TEMPORAL_NAMESPACE=default)',
      );
      // A token from before tokens carried the namespace: the server's refusal, said as one line.
      const { namespace: _ns, ...withoutNamespace } = decodeCompletionToken(tokens[0])!;
      await expect(completeToolCall(elsewhere, encodeCompletionToken(withoutNamespace), 'yes')).rejects.toThrow(
        new ToolCompletionError(`tool call ${withoutNamespace.toolUseId} of ${id}: the run is not in namespace "${namespace}" as this client: complete it with a client of the run's namespace (the CLI: TEMPORAL_NAMESPACE)`),
      );
      // A token whose task token was damaged in transit reads as JSON still, but the server cannot read it.
      const damaged = encodeCompletionToken({ ...decodeCompletionToken(tokens[0])!, taskToken: new Uint8Array([1, 2, 3, 4, 5]) });
      const unreadable = await completeToolCall(env.client, damaged, 'yes').catch((e: Error) => e);
      expect(unreadable).toBeInstanceOf(ToolCompletionError);
      expect((unreadable as Error).message).toMatch(/^that is not a whole completion token \(the server cannot read its task token\): pass the whole/);
      // Neither completed the call: it still waits, and the right token completes it.
      expect((await getStatus(env.client, id)).toolCalls[0]?.waitingForCompletionSince).toBeDefined();
      await completeToolCall(env.client, tokens[0], 'yes');
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'done' });
    });
  });

  it('refuses completeLater() from a tool that did not declare completesLater, as an error the model sees', async () => {
    const sneaky = defineTool({
      ...sneakyDefinition,
      execute: async (_input, context) => context.completeLater(),
    });
    const script: Script = [reply([toolUse('sneaky', {})]), reply([text('ok')])];
    await agents.with({ script, tools: [sneaky as AgentTool] }, async (h) => {
      const id = await startRun(h, 'x', { tools: ['sneaky'] });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed' });
      const [toolResult] = lastToolResults(h.model.requests);
      expect(toolResult).toMatchObject({ is_error: true });
      expect(toolResult.content).toMatch(/called context\.completeLater\(\), but its definition does not set completesLater: true/);
    });
  });
});
