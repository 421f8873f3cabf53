// Stepping into a running run against the real dev server and a real worker: approving and denying tool
// calls (also across a worker restart), follow-up messages, chat runs, and cancellation mid-tool.
import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it, vi } from 'vitest';
import {
  approveToolCall,
  cancelRun,
  closeChatRun,
  denyToolCall,
  getAgentResult,
  getStatus,
  getTranscript,
  resumeAgent,
  sendFollowUp,
} from '../../src/client/index.js';
import { HEARTBEAT_INTERVAL_MS } from '../../src/core/policies.js';
import type { AgentStatusView, MessageParam } from '../../src/core/types.js';
import { reply, startScriptedModel, text, toolUse, type RecordedRequest } from '../../src/scripted/index.js';
import { calculator } from '../../src/tools/calculator.js';
import { defineTool } from '../../src/tools/types.js';
import { createAgentWorker } from '../../src/worker/worker.js';
import { eventKinds, eventMs, eventually, startRun, useSharedAgent, useTestEnv, withAgent } from '../helpers/harness.js';
import { builtinTools } from '../../src/tools/registry.js';

const env = useTestEnv();

// The definitions of the tools the tests bring (each test's own code runs its calls).
const deployDefinition = {
  name: 'deploy',
  description: 'deploys to a target',
  inputSchema: { type: 'object' as const, properties: { target: { type: 'string' } }, required: ['target'] },
  needsApproval: true,
};
const waitDefinition = { name: 'wait', description: 'waits until the test lets it finish', inputSchema: { type: 'object' as const, properties: {} } };
const stubbornDefinition = { name: 'stubborn', description: 'never looks at its signal', inputSchema: { type: 'object' as const, properties: {} } };
// One worker for the file's tests, but the worker-restart test, which starts its own.
const agents = useSharedAgent(env, { tools: [...builtinTools, deployDefinition, waitDefinition, hangingTool().hang, stubbornDefinition] });

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The live status view, polled until `ok` holds. */
function statusWhen(workflowId: string, ok: (v: AgentStatusView) => boolean, timeoutMs?: number): Promise<AgentStatusView> {
  return eventually(
    async () => {
      const s = await getStatus(env.client, workflowId);
      return s.live ? s.view : null;
    },
    (v): v is AgentStatusView => v !== null && ok(v),
    timeoutMs,
  ) as Promise<AgentStatusView>;
}

const answered = (requests: RecordedRequest[]) => requests.filter((r) => r.status === 200);
const messagesOf = (request: RecordedRequest) => (request.body as { messages: MessageParam[] }).messages;
const lastMessage = (request: RecordedRequest) => messagesOf(request).at(-1)!;

/** A promise with its resolve function, to let a test decide when a tool finishes. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe('tool approval', () => {
  const calc = (id: string) => reply([text('Let me compute.'), toolUse('calculator', { expression: '2 + 2' }, id)]);

  it('a tool listed in settings.approve waits for a decision; approved, it runs and the run completes', async () => {
    await agents.with({ script: [calc('toolu_ok'), reply([text('It is 4.')])] }, async (h) => {
      const workflowId = await startRun(h, 'two plus two', { approve: ['calculator'] });
      const waiting = await statusWhen(workflowId, (v) => v.status === 'awaiting_approval');
      expect(waiting.pendingApprovals).toEqual([{ toolUseId: 'toolu_ok', name: 'calculator', input: { expression: '2 + 2' } }]);
      expect(waiting.toolCalls).toBe(0);
      // Nothing runs while the decision is pending.
      expect(answered(h.model.requests)).toHaveLength(1);

      expect(await approveToolCall(h.env.client, workflowId)).toEqual({ toolUseId: 'toolu_ok', approved: true });
      const result = await getAgentResult(h.env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', toolCalls: 1, text: 'It is 4.' });
      expect(lastMessage(answered(h.model.requests)[1])).toMatchObject({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_ok', content: '4' }],
      });
    });
  });

  it('a denied call is not run: the next model request holds an is_error tool_result carrying the reason', async () => {
    let ran = 0;
    const countingCalc: typeof calculator = {
      ...calculator,
      execute(input, context) {
        ran++;
        return calculator.execute(input, context);
      },
    };
    const script = [calc('toolu_no'), reply([text('Understood, I will not compute it.')])];
    await agents.with({ script, tools: [countingCalc] }, async (h) => {
      const workflowId = await startRun(h, 'two plus two', { tools: ['calculator'], approve: ['calculator'] });
      await statusWhen(workflowId, (v) => v.status === 'awaiting_approval');
      expect(await denyToolCall(h.env.client, workflowId, 'toolu_no', 'arithmetic is not allowed today')).toEqual({
        toolUseId: 'toolu_no',
        approved: false,
      });
      const result = await getAgentResult(h.env.client, workflowId);
      expect(result.status).toBe('completed');
      expect(ran).toBe(0);
      const [toolResult] = lastMessage(answered(h.model.requests)[1]).content as unknown as Array<Record<string, unknown>>;
      expect(toolResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_no', is_error: true });
      expect(toolResult.content).toBe('A human reviewer denied this call to calculator: arithmetic is not allowed today');
    });
  });

  it('the validator rejects a decision on an unknown tool call and a second decision on the same call', async () => {
    // The second model call is held so the run is still open when the second decision arrives.
    const script = [calc('toolu_once'), { ...reply([text('done')]), hold: true }];
    await agents.with({ script }, async (h) => {
      const workflowId = await startRun(h, 'two plus two', { approve: ['calculator'] });
      await statusWhen(workflowId, (v) => v.status === 'awaiting_approval');

      const unknown = await approveToolCall(h.env.client, workflowId, 'toolu_nope').catch((e: unknown) => e);
      expect(unknown).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((unknown as WorkflowUpdateFailedError).cause?.message).toMatch(
        /no tool call toolu_nope is waiting for approval \(pending: toolu_once\)/,
      );

      await approveToolCall(h.env.client, workflowId, 'toolu_once');
      await h.model.waitForHeld();
      const again = await denyToolCall(h.env.client, workflowId, 'toolu_once', 'changed my mind').catch((e: unknown) => e);
      expect(again).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((again as WorkflowUpdateFailedError).cause?.message).toMatch(/tool call toolu_once has already been decided/);

      h.model.release();
      const result = await getAgentResult(h.env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', toolCalls: 1 });
      // Rejected updates leave no trace in history: only the accepted decision is recorded.
      const history = await h.env.client.workflow.getHandle(workflowId).fetchHistory();
      const accepted = (history.events ?? []).filter((e: HistoryEvent) => e.workflowExecutionUpdateAcceptedEventAttributes);
      expect(accepted).toHaveLength(1);
    });
  });

  it('a tool whose definition says needsApproval waits for a decision without being listed in settings', async () => {
    const deploy = defineTool<{ target: string }>({
      ...deployDefinition,
      async execute({ target }) {
        return `deployed to ${target}`;
      },
    });
    const script = [reply([toolUse('deploy', { target: 'prod' }, 'toolu_dep')]), reply([text('Deployed.')])];
    await agents.with({ script, tools: [deploy] }, async (h) => {
      const workflowId = await startRun(h, 'ship it', { tools: ['deploy'] });
      const waiting = await statusWhen(workflowId, (v) => v.status === 'awaiting_approval');
      expect(waiting.pendingApprovals.map((c) => c.toolUseId)).toEqual(['toolu_dep']);
      await approveToolCall(h.env.client, workflowId, 'toolu_dep');
      const result = await getAgentResult(h.env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', toolCalls: 1, text: 'Deployed.' });
      expect(lastMessage(answered(h.model.requests)[1])).toMatchObject({
        content: [{ type: 'tool_result', tool_use_id: 'toolu_dep', content: 'deployed to prod' }],
      });
    });
  });

  it('the approval wait survives a worker restart: a new worker sees the pending call, and approving it completes the run', async () => {
    const model = await startScriptedModel({ script: [calc('toolu_durable'), reply([text('It is 4.')])] });
    const taskQueue = `test-${randomUUID()}`;
    const newWorker = () =>
      createAgentWorker({
        connection: env.connection,
        client: env.client,
        taskQueue,
        model: { apiKey: 'test-key', baseURL: model.url },
        tools: builtinTools,
      });
    try {
      const first = await newWorker();
      const firstRunning = first.worker.run();
      const workflowId = await startRun({ env, taskQueue }, 'two plus two', { approve: ['calculator'] });
      const before = await statusWhen(workflowId, (v) => v.status === 'awaiting_approval');
      expect(before.pendingApprovals.map((c) => c.toolUseId)).toEqual(['toolu_durable']);

      first.worker.shutdown();
      await firstRunning;
      // No worker: the live view is gone, but the run is still open and says (search attribute) what it waits for.
      const offline = await getStatus(env.client, workflowId, 500);
      expect(offline.live).toBe(false);
      if (!offline.live) {
        expect(offline.executionStatus).toBe('RUNNING');
        expect(offline.attributes.status).toBe('awaiting_approval');
      }

      const second = await newWorker();
      await second.worker.runUntil(async () => {
        // The new worker rebuilt the run from history: still waiting, for the same call.
        const after = await statusWhen(workflowId, (v) => v.status === 'awaiting_approval');
        expect(after.pendingApprovals.map((c) => c.toolUseId)).toEqual(['toolu_durable']);
        expect(after.steps).toBe(1);
        await approveToolCall(env.client, workflowId, 'toolu_durable');
        const result = await getAgentResult(env.client, workflowId);
        expect(result).toMatchObject({ status: 'completed', steps: 2, toolCalls: 1, text: 'It is 4.' });
      });
      // The first model call was not made again after the restart.
      expect(answered(model.requests).map((r) => r.turn)).toEqual([0, 1]);
    } finally {
      await model.close();
    }
  });
});

describe('follow-up messages', () => {
  it('a chat run waits after end_turn; a follow-up starts the next turn; closing it completes the run with both answers', async () => {
    const script = [reply([text('Paris is the capital of France.')]), reply([text('Berlin is the capital of Germany.')])];
    await agents.with({ script }, async (h) => {
      const workflowId = await startRun(h, 'capital of France?', { chat: true });
      const idle = await statusWhen(workflowId, (v) => v.waitingForMessage);
      expect(idle).toMatchObject({ status: 'running', steps: 1, lastText: 'Paris is the capital of France.' });

      expect(await sendFollowUp(h.env.client, workflowId, 'And of Germany?')).toEqual({ queued: 1 });
      await statusWhen(workflowId, (v) => v.waitingForMessage && v.steps === 2);
      const second = answered(h.model.requests)[1];
      expect(messagesOf(second)).toHaveLength(3);
      expect(lastMessage(second)).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'And of Germany?' }] });

      await closeChatRun(h.env.client, workflowId);
      const result = await getAgentResult(h.env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', steps: 2, text: 'Berlin is the capital of Germany.' });
      const transcript = await getTranscript(h.env.client, workflowId);
      expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(transcript.filter((m) => m.role === 'assistant')).toHaveLength(2);
    });
  });

  it('a message sent while a tool runs lands in the same user message as the tool results, after them', async () => {
    const started = gate();
    const finish = gate();
    const wait = defineTool<Record<string, never>>({
      ...waitDefinition,
      async execute() {
        started.open();
        await finish.opened;
        return 'waited';
      },
    });
    const script = [reply([toolUse('wait', {}, 'toolu_w')]), reply([text('Done, and noted.')])];
    await agents.with({ script, tools: [wait] }, async (h) => {
      const workflowId = await startRun(h, 'wait, then answer', { tools: ['wait'] });
      await started.opened;
      await sendFollowUp(h.env.client, workflowId, 'Also: keep it short.');
      finish.open();
      const result = await getAgentResult(h.env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', steps: 2 });
      const second = answered(h.model.requests)[1];
      expect(messagesOf(second)).toHaveLength(3);
      expect(lastMessage(second)).toMatchObject({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_w', content: 'waited' },
          { type: 'text', text: 'Also: keep it short.' },
        ],
      });
    });
  });
});

describe('close on a run that is not a chat run', () => {
  it('closing a run started without chat changes nothing: a follow-up sent after it is still taken at the next turn', async () => {
    const started = gate();
    const finish = gate();
    const wait = defineTool<Record<string, never>>({
      ...waitDefinition,
      async execute() {
        started.open();
        await finish.opened;
        return 'waited';
      },
    });
    const script = [reply([toolUse('wait', {}, 'toolu_w')]), reply([text('Done.')])];
    await agents.with({ script, tools: [wait] }, async (h) => {
      const workflowId = await startRun(h, 'wait, then answer', { tools: ['wait'] });
      await started.opened;
      await closeChatRun(h.env.client, workflowId);
      // The close is in the run's history before the message is sent.
      await eventually(async () => eventKinds((await h.env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []), (k) => k.includes('WorkflowExecutionSignaled'));
      expect(await sendFollowUp(h.env.client, workflowId, 'Also: keep it short.')).toEqual({ queued: 1 });
      finish.open();
      expect(await getAgentResult(h.env.client, workflowId)).toMatchObject({ status: 'completed', steps: 2 });
      expect(lastMessage(answered(h.model.requests)[1])).toMatchObject({
        content: [{ type: 'tool_result', tool_use_id: 'toolu_w' }, { type: 'text', text: 'Also: keep it short.' }],
      });
    });
  });
});

describe('follow-ups at the end of a run', () => {
  it('a message sent while the run is finishing (its summary call) is refused, not accepted and lost', async () => {
    const script = (req: { tool_choice?: { type: string } }, turn: number) =>
      req.tool_choice?.type === 'none'
        ? { ...reply([text('Summary: counted once.')]), hold: true }
        : reply([toolUse('calculator', { expression: `${turn} + 1` })]);
    await agents.with({ script }, async (h) => {
      const workflowId = await h.start('count', { maxSteps: 1 });
      await h.model.waitForHeld(1, 20_000); // the summary call is in flight
      const refused = await sendFollowUp(h.env.client, workflowId, 'one more thing').catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((refused as WorkflowUpdateFailedError).cause?.message).toMatch(/the run is finishing/);
      h.model.release();
      const result = await getAgentResult(h.env.client, workflowId);
      expect(result).toMatchObject({ status: 'stopped', guard: 'max_steps', text: 'Summary: counted once.' });
    });
  });
});

describe('follow-ups accepted before the run stops', () => {
  it('a follow-up accepted while the last model call was in flight is not lost when the run stops: it ends the transcript, and a resumed run reads it', async () => {
    const script = [{ ...reply([text('The answer is cut')], 'max_tokens'), hold: true }, reply([text('Short answer: 4.')])];
    await agents.with({ script }, async (h) => {
      const workflowId = await startRun(h, 'two plus two');
      await h.model.waitForHeld();
      expect(await sendFollowUp(h.env.client, workflowId, 'Keep it short.')).toEqual({ queued: 1 });
      h.model.release();
      const stopped = await getAgentResult(h.env.client, workflowId);
      expect(stopped).toMatchObject({ status: 'stopped', text: 'The answer is cut' });
      // The message the run accepted is in what it recorded, after the turn it came during.
      expect((await getTranscript(h.env.client, workflowId)).at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'Keep it short.' }] });

      await resumeAgent(h.env.client, workflowId, { taskQueue: h.taskQueue });
      await vi.waitFor(async () => expect((await getAgentResult(h.env.client, workflowId)).runsUsed).toBe(2));
      expect(await getAgentResult(h.env.client, workflowId)).toMatchObject({ status: 'completed', text: 'Short answer: 4.' });
      expect(lastMessage(answered(h.model.requests)[1])).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'Keep it short.' }] });
    });
  });
});

/** A tool that runs until its call is cancelled, and records when it saw the abort. */
function hangingTool() {
  const started = gate();
  let abortedAt: number | null = null;
  const hang = defineTool<Record<string, never>>({
    name: 'hang',
    description: 'runs until cancelled',
    inputSchema: { type: 'object', properties: {} },
    execute(_input, { signal }) {
      started.open();
      return new Promise<string>((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          abortedAt = Date.now();
          reject(signal.reason);
        });
      });
    },
  });
  return { hang, started, abortedAt: () => abortedAt };
}

/** A cancelled run's history: the in-flight call's cancellation requested, then acknowledged (ActivityTaskCanceled,
 * which reaches the worker with a heartbeat), then the run completed. */
function expectCancelAcknowledged(events: HistoryEvent[]): void {
  const kinds = eventKinds(events);
  const order = ['ActivityTaskCancelRequested', 'ActivityTaskCanceled', 'WorkflowExecutionCompleted'].map((k) => kinds.indexOf(k));
  expect(order.every((i) => i > 0), kinds.join(', ')).toBe(true);
  expect(order).toEqual([...order].sort((a, b) => a - b));
}

describe('cancellation', () => {
  // A cancelled call acknowledges with its next heartbeat. Where the beat's spacing is not what a test is about, a short
  // heartbeat timeout (beats every third of it, sent at most every 80 % of it) brings the acknowledgement within about
  // 1.6 s instead of the worker's 3 s cap; the test of that cap keeps the default.
  const ACK_HEARTBEAT_TIMEOUT_MS = 2_000;

  it('cancelling mid-tool ends the run as cancelled with the partial answer, and the tool sees its signal abort', async () => {
    const { hang, started, abortedAt: aborted } = hangingTool();
    const script = [reply([text('Starting the long job.'), toolUse('hang', {}, 'toolu_h')]), reply([text('never reached')])];
    await agents.with({ script, tools: [hang] }, async (h) => {
      const workflowId = await startRun(h, 'a long job', { tools: ['hang'], heartbeatTimeoutMs: ACK_HEARTBEAT_TIMEOUT_MS });
      await started.opened;
      await cancelRun(h.env.client, workflowId);
      const result = await getAgentResult(h.env.client, workflowId);
      // The run waits for the tool call to acknowledge its cancellation, which reaches it with its next heartbeat
      // (the history's order below: cancel requested, call cancelled, run completed).
      const closedAt = Date.now();
      expect(result).toMatchObject({ status: 'cancelled', partial: true, text: 'Starting the long job.', steps: 1, error: null });
      expect(answered(h.model.requests)).toHaveLength(1);
      // The tool saw its signal abort before the run closed.
      expect(aborted()).not.toBeNull();
      expect(aborted()!).toBeLessThanOrEqual(closedAt);

      const history = await h.env.client.workflow.getHandle(workflowId).fetchHistory();
      const events = history.events ?? [];
      expectCancelAcknowledged(events);
      // The closed run shows no pending work (the UI's "Pending Activities").
      expect((await h.env.client.workflow.getHandle(workflowId).describe()).raw.pendingActivities ?? []).toEqual([]);
      // The transcript stays valid: the open tool_use is answered, as interrupted (it was running).
      const transcript = await getTranscript(h.env.client, workflowId);
      expect(transcript.at(-1)).toMatchObject({
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_h',
            is_error: true,
            content: 'Interrupted: the run was cancelled. The call was running and may or may not have taken effect.',
          },
        ],
      });
    });
  });

  it('a call waiting for approval when the run is cancelled is no longer waiting: a decision sent while another call settles is refused, not accepted and lost', async () => {
    const { hang, started } = hangingTool();
    const script = [reply([toolUse('hang', {}, 'toolu_long'), toolUse('calculator', { expression: '2 + 2' }, 'toolu_wait')]), reply([text('never reached')])];
    // The running call hears of the cancel with its next heartbeat: beats at most every 8 minutes here, so the run
    // stays open, settling, while the test decides the call that was waiting.
    await withAgent(env, { script, tools: [hang, calculator], workerOptions: { maxHeartbeatThrottleInterval: '10m' } }, async (h) => {
      const workflowId = await startRun(h, 'a long job and a sum', { tools: ['hang', 'calculator'], approve: ['calculator'], heartbeatTimeoutMs: 600_000 });
      const handle = h.env.client.workflow.getHandle(workflowId);
      try {
        await started.opened;
        await statusWhen(workflowId, (v) => v.pendingApprovals.length === 1);
        // The call's first beat has reached the server: the next one is throttled.
        await eventually(() => handle.describe(), (d) => Boolean(d.raw.pendingActivities?.[0]?.lastHeartbeatTime));
        await cancelRun(h.env.client, workflowId);
        await eventually(async () => eventKinds((await handle.fetchHistory()).events ?? []), (kinds) => kinds.includes('ActivityTaskCancelRequested'));
        expect((await handle.describe()).status.name).toBe('RUNNING');

        const late = await approveToolCall(h.env.client, workflowId, 'toolu_wait').catch((e: unknown) => e);
        expect(late).toBeInstanceOf(WorkflowUpdateFailedError);
        expect((late as WorkflowUpdateFailedError).cause?.message).toMatch(/no tool call toolu_wait is waiting for approval \(pending: none\)/);
        expect((await statusWhen(workflowId, () => true)).pendingApprovals).toEqual([]);
      } finally {
        await handle.terminate('test cleanup').catch(() => undefined);
      }
    });
  });

  it('a tool that has been running for several heartbeats keeps beating (the server records each beat), and the cancellation reaches it with the next one', async () => {
    const { hang, started, abortedAt: aborted } = hangingTool();
    const script = [reply([toolUse('hang', {}, 'toolu_h')]), reply([text('never reached')])];
    await agents.with({ script, tools: [hang] }, async (h) => {
      const workflowId = await startRun(h, 'a long job', { tools: ['hang'] });
      const handle = h.env.client.workflow.getHandle(workflowId);
      await started.opened;
      // Past the first beats, the server keeps recording new ones: without the worker's throttle cap
      // (HEARTBEAT_INTERVAL_MS) the SDK would space later beats 24 s apart, and the cancel would wait for one.
      const beats = new Set<number>();
      await vi.waitFor(
        async () => {
          const [call] = (await handle.describe()).raw.pendingActivities ?? [];
          if (call?.lastHeartbeatTime) beats.add(eventMs(call.lastHeartbeatTime));
          expect(beats.size).toBeGreaterThanOrEqual(3);
        },
        { timeout: 10 * HEARTBEAT_INTERVAL_MS, interval: 200 },
      );
      await cancelRun(h.env.client, workflowId);
      expect((await getAgentResult(h.env.client, workflowId)).status).toBe('cancelled');
      expect(aborted()).not.toBeNull();
      expectCancelAcknowledged((await handle.fetchHistory()).events ?? []);
    });
  });

  it('cancelling while a model call is in flight waits for the call to acknowledge: the closed run shows no pending activity', async () => {
    const script = [{ ...reply([text('never sent')]), hold: true }];
    await agents.with({ script }, async (h) => {
      const workflowId = await startRun(h, 'a slow model', { heartbeatTimeoutMs: ACK_HEARTBEAT_TIMEOUT_MS });
      const handle = h.env.client.workflow.getHandle(workflowId);
      await eventually(() => handle.describe(), (d) => (d.raw.pendingActivities ?? []).length === 1 && h.model.requests.length === 1);
      await cancelRun(h.env.client, workflowId);
      const result = await getAgentResult(h.env.client, workflowId);
      expect(result).toMatchObject({ status: 'cancelled', steps: 0, error: null });
      const description = await handle.describe();
      expect(description.status.name).toBe('COMPLETED');
      expect(description.raw.pendingActivities ?? []).toEqual([]);
      const events = (await handle.fetchHistory()).events ?? [];
      expectCancelAcknowledged(events);
    });
  });

  it('a tool that ignores its abort signal does not hold the cancel: the call ends as cancelled at its next heartbeat', async () => {
    const started = gate();
    const stubborn = defineTool<Record<string, never>>({
      ...stubbornDefinition,
      execute() {
        started.open();
        return new Promise<string>((resolve) => setTimeout(() => resolve('finally done'), 60_000));
      },
    });
    const script = [reply([toolUse('stubborn', {})]), reply([text('never reached')])];
    await agents.with({ script, tools: [stubborn] }, async (h) => {
      const workflowId = await startRun(h, 'a stubborn tool', { tools: ['stubborn'], heartbeatTimeoutMs: ACK_HEARTBEAT_TIMEOUT_MS });
      await started.opened;
      await cancelRun(h.env.client, workflowId);
      expect((await getAgentResult(h.env.client, workflowId)).status).toBe('cancelled');
      // The call was cancelled (acknowledged at a heartbeat) before the run closed; it never completed, though the
      // tool would have answered after 60 s.
      const events = (await h.env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      expectCancelAcknowledged(events);
      const kinds = eventKinds(events);
      expect(kinds.slice(kinds.indexOf('ActivityTaskCancelRequested'))).not.toContain('ActivityTaskCompleted');
      expect((await h.env.client.workflow.getHandle(workflowId).describe()).raw.pendingActivities ?? []).toEqual([]);
    });
  });
});
