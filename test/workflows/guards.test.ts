// The harness guards, the finish tool, the model options, prompt caching and the per-worker model-call bound,
// against the real dev server, a real worker and the scripted model (through the real Anthropic SDK).
import { describe, expect, it } from 'vitest';
import { getAgentResult, resumeAgent } from '../../src/client/index.js';
import { costUsd, PRICES } from '../../src/core/pricing.js';
import type { AgentInput, MessageParam } from '../../src/core/types.js';
import {
  reply,
  text,
  thinking,
  toolUse,
  type MessagesRequestBody,
  type RecordedRequest,
  type Script,
  type ScriptedModel,
} from '../../src/scripted/index.js';
import { defineTool, ToolError, type AgentTool } from '../../src/tools/types.js';
import { transcriptPage } from '../../src/workflows/definitions.js';
import { eventKinds, eventMs as ms, scheduledActivities, useSharedAgent, useTestEnv, withAgent, type HistoryEvent } from '../helpers/harness.js';
import { builtinTools } from '../../src/tools/registry.js';

const env = useTestEnv();

const answered = (model: ScriptedModel) => model.requests.filter((r) => r.status === 200);
const bodyOf = (r: RecordedRequest) => r.body as MessagesRequestBody;
const messagesOf = (r: RecordedRequest) => bodyOf(r).messages as MessageParam[];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Block = { type: string; [key: string]: unknown };
const blocksOf = (m: MessageParam): Block[] =>
  typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content as unknown as Block[]);

/** The whole transcript of a run, read with the workflow's own query (works after the run closed). */
/** A run the deadline stopped, from its history: one timer, set for `deadlineMs`, fired (the run's bound on waiting for
 * the cancelled calls, a second timer, never did), then the in-flight call's cancellation was requested and
 * acknowledged, then the run completed. */
function expectDeadlineStop(events: HistoryEvent[] | null | undefined, deadlineMs: number): void {
  const kinds = eventKinds(events);
  expect(kinds.filter((k) => k === 'TimerFired')).toHaveLength(1);
  const timer = events!.find((e) => e.timerStartedEventAttributes)!.timerStartedEventAttributes!;
  expect(ms(timer.startToFireTimeout)).toBeLessThanOrEqual(deadlineMs);
  const order = ['TimerFired', 'ActivityTaskCancelRequested', 'ActivityTaskCanceled', 'WorkflowExecutionCompleted'].map((k) => kinds.indexOf(k));
  expect(order.every((i) => i >= 0), kinds.join(', ')).toBe(true);
  expect(order).toEqual([...order].sort((a, b) => a - b));
}

async function transcriptOf(workflowId: string): Promise<MessageParam[]> {
  const page = await env.client.workflow.getHandle(workflowId).query(transcriptPage, 0, 10_000);
  expect(page.messages).toHaveLength(page.total);
  return page.messages;
}

/** A tool that records every execution and answers with a fixed text. */
function spyTool(name: string, answer = 'some facts'): AgentTool & { calls: unknown[] } {
  const calls: unknown[] = [];
  const tool = defineTool<Record<string, unknown>>({
    name,
    description: `${name}, spied on by the test`,
    inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
    async execute(input) {
      calls.push(input);
      return answer;
    },
  });
  return Object.assign(tool, { calls });
}

/** A tool that records every execution and always reports an error the model could act on. */
function failingTool(name: string): AgentTool & { calls: unknown[] } {
  const calls: unknown[] = [];
  const tool = defineTool<Record<string, unknown>>({
    name,
    description: 'always fails',
    inputSchema: { type: 'object' },
    async execute(input) {
      calls.push(input);
      throw new ToolError('the service is down');
    },
  });
  return Object.assign(tool, { calls });
}

/** The deadline test's tool as the worker defines it (the test brings its own, with the same definition). */
const slowTool = defineTool<Record<string, unknown>>({
  name: 'slow',
  description: 'takes far too long',
  inputSchema: { type: 'object' },
  execute: async () => 'too late',
});

// One worker for the file's tests, but the one that bounds the worker's activity slots: every tool the tests use
// (each test's own spies run its calls).
const agents = useSharedAgent(env, { tools: [...builtinTools, spyTool('lookup'), failingTool('flaky'), slowTool] });

const SUMMARY = 'Partial answer: France has about 68.6 million people; the rest is unchecked.';
const isSummaryRequest = (req: MessagesRequestBody) => req.tool_choice?.type === 'none';

describe('repetition guard', () => {
  // The same lookup three times, spelled differently: only case and surrounding white space differ.
  const variants = ['Population of France', '  population of FRANCE ', 'POPULATION OF FRANCE\n'];
  const circling: Script = (req, turn) =>
    isSummaryRequest(req)
      ? reply([text(SUMMARY)])
      : reply([text(`attempt ${turn + 1}`), toolUse('lookup', { query: variants[turn] ?? 'something else' })]);

  it('stops the run before the third identical call runs, answers it as not run, and asks for a summary', async () => {
    const lookup = spyTool('lookup');
    await agents.with({ script: circling, tools: [lookup] }, async ({ run, model, env }) => {
      const result = await run('population of France');
      expect(result).toMatchObject({ status: 'stopped', guard: 'repetition', partial: true, text: SUMMARY, toolCalls: 2, steps: 4 });
      expect(result.error).toMatch(/lookup was requested 3 times with the same arguments/);
      // The tool ran for the first two requests only.
      expect(lookup.calls).toEqual([{ query: variants[0] }, { query: variants[1] }]);
      expect(await scheduledActivities(env.client, result.workflowId)).toEqual([
        'callModel', 'runTool', 'callModel', 'runTool', 'callModel', 'callModel',
      ]);
      // The summary call: tools disabled but still defined, and the open third call answered first.
      const summary = answered(model)[3];
      expect(bodyOf(summary).tool_choice).toEqual({ type: 'none' });
      expect(bodyOf(summary).tools?.map((t) => (t as { name: string }).name)).toEqual(['lookup']);
      const closing = blocksOf(messagesOf(summary).at(-1)!);
      expect(closing[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_2_1', is_error: true });
      expect(closing[0].content).toMatch(/^Not run: .*repetition guard/);
      expect(closing.at(-1)).toMatchObject({ type: 'text' });
      expect(closing.at(-1)!.text).toMatch(/cannot use tools/);
    });
  });

  it('without repetition in summaryOn, makes no summary call; the partial answer is the last text and the transcript is closed', async () => {
    const lookup = spyTool('lookup');
    await agents.with({ script: circling, tools: [lookup] }, async ({ run, model }) => {
      const result = await run('population of France', { summaryOn: ['max_steps'] });
      expect(result).toMatchObject({ status: 'stopped', guard: 'repetition', partial: true, text: 'attempt 3', steps: 3 });
      expect(lookup.calls).toHaveLength(2);
      expect(model.requests).toHaveLength(3);
      const last = (await transcriptOf(result.workflowId)).at(-1)!;
      expect(last.role).toBe('user');
      expect(blocksOf(last)).toEqual([
        expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_2_1', is_error: true, content: expect.stringMatching(/^Not run: .*repetition/) }),
      ]);
    });
  });

  it('different arguments never trip it', async () => {
    const lookup = spyTool('lookup');
    const script: Script = (_req, turn) =>
      turn < 4 ? reply([toolUse('lookup', { query: `page ${turn}` })]) : reply([text('done')]);
    await agents.with({ script, tools: [lookup] }, async ({ run }) => {
      const result = await run('browse');
      expect(result).toMatchObject({ status: 'completed', guard: null, toolCalls: 4 });
    });
  });
});

describe('error streak guard', () => {
  it('stops the run after three tool calls in a row end in an error, with a summary call', async () => {
    const flaky = failingTool('flaky');
    const script: Script = (req, turn) =>
      isSummaryRequest(req) ? reply([text(SUMMARY)]) : reply([text(`try ${turn + 1}`), toolUse('flaky', { attempt: turn })]);
    await agents.with({ script, tools: [flaky] }, async ({ run, model }) => {
      const result = await run('use the flaky service');
      expect(result).toMatchObject({ status: 'stopped', guard: 'error_streak', partial: true, text: SUMMARY, toolCalls: 3, steps: 4 });
      expect(result.error).toMatch(/3 tool calls in a row ended in an error/);
      expect(flaky.calls).toHaveLength(3);
      expect(bodyOf(answered(model)[3]).tool_choice).toEqual({ type: 'none' });
    });
  });

  it('a success resets the streak: two errors, a success, two errors and the run goes on', async () => {
    const flaky = failingTool('flaky');
    const lookup = spyTool('lookup');
    const script = [
      reply([toolUse('flaky', { n: 1 }), toolUse('flaky', { n: 2 })]),
      reply([toolUse('lookup', { query: 'works' })]),
      reply([toolUse('flaky', { n: 3 }), toolUse('flaky', { n: 4 })]),
      reply([text('done despite the errors')]),
    ];
    await agents.with({ script, tools: [flaky, lookup] }, async ({ run }) => {
      const result = await run('mixed', { tools: ['flaky', 'lookup'] });
      expect(result).toMatchObject({ status: 'completed', guard: null, toolCalls: 5, text: 'done despite the errors' });
      expect(flaky.calls).toHaveLength(4);
    });
  });
});

describe('budget guard', () => {
  // Two calls' usage on claude-sonnet-5-5: $0.0084 for the first, $0.0114 with the second.
  const first = { input_tokens: 1000, output_tokens: 100, cache_creation_input_tokens: 2000, cache_read_input_tokens: 4000 };
  const second = { input_tokens: 500, output_tokens: 200, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

  it('token budget: the call whose usage reaches the budget ends the run; its tools do not run and no summary call is made', async () => {
    const lookup = spyTool('lookup');
    const script = [
      { ...reply([text('first'), toolUse('lookup', { query: 'a' })]), usage: { input_tokens: 100, output_tokens: 50 } },
      {
        ...reply([text('second'), toolUse('lookup', { query: 'b' })]),
        usage: { input_tokens: 300, output_tokens: 50, cache_read_input_tokens: 100 },
      },
      reply([text('never reached')]),
    ];
    await agents.with({ script, tools: [lookup] }, async ({ run, model }) => {
      const result = await run('spend tokens', { budgetTokens: 600 });
      expect(result).toMatchObject({ status: 'stopped', guard: 'budget', partial: true, text: 'second', steps: 2, toolCalls: 1 });
      expect(result.error).toMatch(/token budget spent: 600 of 600 tokens/);
      expect(result.usage).toEqual({ input_tokens: 400, output_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 100 });
      expect(lookup.calls).toEqual([{ query: 'a' }]);
      expect(model.requests).toHaveLength(2);
      const last = (await transcriptOf(result.workflowId)).at(-1)!;
      expect(blocksOf(last)).toEqual([
        expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_1_1', is_error: true, content: expect.stringMatching(/^Not run: .*budget/) }),
      ]);
    });
  });

  it('token budget: a call the estimate shows cannot fit is not made, and one that just fits is', async () => {
    // After call 1 (100 in + 50 out), the next call needs at least 100 + 50 + 1 = 151 tokens: 301 in all.
    const script = [
      { ...reply([text('first'), toolUse('lookup', { query: 'a' })]), usage: { input_tokens: 100, output_tokens: 50 } },
      { ...reply([text('second and last')]), usage: { input_tokens: 1, output_tokens: 1 } },
    ];
    await agents.with({ script, tools: [spyTool('lookup')] }, async ({ run, model }) => {
      const stopped = await run('tight budget', { budgetTokens: 300 });
      expect(stopped).toMatchObject({ status: 'stopped', guard: 'budget', text: 'first', steps: 1, toolCalls: 1 });
      expect(stopped.error).toMatch(/150 of 300 tokens used, and the next call needs at least 151/);
      expect(model.requests).toHaveLength(1);

      const fits = await run('just enough budget', { budgetTokens: 301 });
      expect(fits).toMatchObject({ status: 'completed', guard: null, steps: 2, text: 'second and last' });
      expect(model.requests).toHaveLength(3);
    });
  });

  it('cost budget (priced model): stops when the spend reaches it, counting cache writes and reads', async () => {
    const script = [
      { ...reply([text('first'), toolUse('lookup', { query: 'a' })]), usage: first },
      { ...reply([text('second'), toolUse('lookup', { query: 'b' })]), usage: second },
      reply([text('never reached')]),
    ];
    await agents.with({ script, tools: [spyTool('lookup')] }, async ({ run, model }) => {
      // Call 1 costs $0.0084 (the next call at least $0.00091 more: it fits); call 2 brings it to $0.0114.
      const result = await run('spend money', { model: 'claude-sonnet-5-5', budgetUsd: 0.01 });
      expect(result).toMatchObject({ status: 'stopped', guard: 'budget', partial: true, text: 'second', steps: 2, toolCalls: 1 });
      expect(result.error).toMatch(/cost budget spent/);
      expect(result.usage).toEqual({ input_tokens: 1500, output_tokens: 300, cache_creation_input_tokens: 2000, cache_read_input_tokens: 4000 });
      const price = PRICES['claude-sonnet-5-5'];
      expect(result.costUsd).toBeCloseTo(costUsd(first, price) + costUsd(second, price), 12);
      expect(result.costUsd).toBeCloseTo(0.0114, 12);
      expect(model.requests).toHaveLength(2);
    });
  });

  it('cost budget: a run it stopped, resumed with more dollars (moreBudgetUsd, --budget-usd), goes on to its answer', async () => {
    const script = [
      { ...reply([text('first'), toolUse('lookup', { query: 'a' })]), usage: first },
      { ...reply([text('second'), toolUse('lookup', { query: 'b' })]), usage: second },
      { ...reply([text('done')]), usage: second },
    ];
    await agents.with({ script, tools: [spyTool('lookup')] }, async ({ start, taskQueue }) => {
      const id = await start('spend money', { tools: ['lookup'], model: 'claude-sonnet-5-5', budgetUsd: 0.01 });
      const stopped = await getAgentResult(env.client, id);
      expect(stopped).toMatchObject({ status: 'stopped', guard: 'budget', steps: 2 });
      await resumeAgent(env.client, id, { moreBudgetUsd: 0.01, taskQueue });
      const resumed = await getAgentResult(env.client, id);
      expect(resumed).toMatchObject({ status: 'completed', text: 'done', steps: 3 });
      // The new budget is what was spent plus what was given.
      const history = await env.client.workflow.getHandle(id).fetchHistory();
      const input = env.client.options.loadedDataConverter.payloadConverter.fromPayload<AgentInput>(history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0]);
      expect(input.settings.budgetUsd).toBeCloseTo(stopped.costUsd! + 0.01, 9);
    });
  });

  it('cost budget: more dollars for a run whose model has no price are refused, naming the setting and what to use', async () => {
    const script = [reply([text('first'), toolUse('lookup', { query: 'a' })]), reply([text('never reached')])];
    await agents.with({ script, tools: [spyTool('lookup')] }, async ({ start, taskQueue }) => {
      const id = await start('count', { tools: ['lookup'], model: 'claude-unpriced-test', maxSteps: 1, summaryOn: [] });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'stopped', guard: 'max_steps' });
      await expect(resumeAgent(env.client, id, { moreBudgetUsd: 1, taskQueue })).rejects.toThrow(
        'invalid settings: budgetUsd needs the price of model "claude-unpriced-test", which the run has none of: use a token budget (moreBudgetTokens, --budget-tokens)',
      );
    });
  });

  it('cost budget: a call whose cheapest possible price does not fit is not made', async () => {
    const script = [{ ...reply([text('first'), toolUse('lookup', { query: 'a' })]), usage: first }, reply([text('never reached')])];
    await agents.with({ script, tools: [spyTool('lookup')] }, async ({ run, model }) => {
      // $0.0084 spent + at least $0.00091 for the next call = $0.00931 > $0.0091.
      const result = await run('spend money', { model: 'claude-sonnet-5-5', budgetUsd: 0.0091 });
      expect(result).toMatchObject({ status: 'stopped', guard: 'budget', text: 'first', steps: 1 });
      expect(result.error).toMatch(/next call costs at least/);
      expect(model.requests).toHaveLength(1);
    });
  });
});

describe('deadline guard', () => {
  // A cancelled call acknowledges with its next heartbeat: a short heartbeat timeout (beats every third of it, sent at
  // most every 80 % of it) brings that acknowledgement within about 1.6 s instead of the worker's 3 s beat.
  const ACK_HEARTBEAT_TIMEOUT_MS = 2_000;

  it('fires on time while a model call is held, cancels it, and stops the run without a summary call', async () => {
    const script = [
      reply([text('found part of it'), toolUse('lookup', { query: 'a' })]),
      { ...reply([text('never answered')]), hold: true },
    ];
    await agents.with({ script, tools: [spyTool('lookup')] }, async ({ run, model, env }) => {
      const deadlineMs = 1500;
      const started = Date.now();
      const result = await run('slow model', { deadlineMs, heartbeatTimeoutMs: ACK_HEARTBEAT_TIMEOUT_MS });
      const elapsed = Date.now() - started;
      expect(result).toMatchObject({ status: 'stopped', guard: 'deadline', partial: true, text: 'found part of it', steps: 1, toolCalls: 1 });
      expect(result.error).toMatch(/deadline reached \(1500 ms/);
      expect(elapsed).toBeGreaterThanOrEqual(deadlineMs);
      // The second call was in flight when the deadline fired, and was never answered; no call came after it.
      expect(model.requests).toHaveLength(2);
      expect(model.requests[1].status).not.toBe(200);
      const handle = env.client.workflow.getHandle(result.workflowId);
      const history = await handle.fetchHistory();
      // In the history: the deadline's timer (set for deadlineMs) fired, then the call was cancelled, and the run
      // closed once the call acknowledged (its next heartbeat), before the run's bound on that wait: the only timer
      // that fired is the deadline's.
      expectDeadlineStop(history.events, deadlineMs);
      // The call was cancelled on the server before the run closed: the closed run has nothing pending.
      expect((await handle.describe()).raw.pendingActivities ?? []).toEqual([]);
      model.release();
    });
  });

  it('fires while a tool is running, and answers its tool_use as interrupted (it may have taken effect)', async () => {
    let toolAborted: Promise<void> | undefined;
    const slow = defineTool<Record<string, unknown>>({
      name: 'slow',
      description: 'takes far too long',
      inputSchema: { type: 'object' },
      execute: (_input, ctx) => {
        toolAborted = new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
        return Promise.race([toolAborted, sleep(20_000)]).then(() => 'too late');
      },
    });
    const script = [reply([text('starting the slow job'), toolUse('slow', {})]), reply([text('never reached')])];
    await agents.with({ script, tools: [slow] }, async ({ run, model, env }) => {
      const result = await run('slow tool', { deadlineMs: 1500, heartbeatTimeoutMs: ACK_HEARTBEAT_TIMEOUT_MS });
      // The tool saw its abort signal; the run closed once the cancelled tool call acknowledged, not after the 20 s
      // the tool would otherwise take nor the run's own bound on that wait (the history's only fired timer is the
      // deadline's).
      await expect(toolAborted).resolves.toBeUndefined();
      const handle = env.client.workflow.getHandle(result.workflowId);
      expectDeadlineStop((await handle.fetchHistory()).events, 1500);
      expect((await handle.describe()).raw.pendingActivities ?? []).toEqual([]);
      expect(result).toMatchObject({ status: 'stopped', guard: 'deadline', text: 'starting the slow job', steps: 1 });
      expect(model.requests).toHaveLength(1);
      const last = (await transcriptOf(result.workflowId)).at(-1)!;
      expect(blocksOf(last)).toEqual([
        expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_0_1', is_error: true, content: expect.stringMatching(/^Interrupted: .*deadline.*may or may not have taken effect/) }),
      ]);
    });
  });

  it('keeps the absolute deadline across continue-as-new: it fires at the time set when the job started, not later', async () => {
    const script = [
      { ...reply([toolUse('lookup', { query: 'a' })]), delayMs: 800 },
      { ...reply([toolUse('lookup', { query: 'b' })]), delayMs: 800 },
      { ...reply([text('never answered')]), hold: true },
    ];
    await agents.with({ script, tools: [spyTool('lookup')] }, async ({ run, model, env }) => {
      const deadlineMs = 4_000;
      const result = await run('slow job', { deadlineMs, continueAsNewAfterSteps: 1, heartbeatTimeoutMs: ACK_HEARTBEAT_TIMEOUT_MS });
      model.release();
      // Three runs when the machine is quiet; a loaded one may reach the deadline in the second. Either way the timer
      // that fired is in a run that began well after the job did.
      expect(result).toMatchObject({ status: 'stopped', guard: 'deadline' });
      expect(result.runsUsed).toBeGreaterThanOrEqual(2);
      // The deadline timer of the last run was set for the job's own deadline: when it started plus how long it ran
      // comes to deadlineMs after the job began. A deadline recomputed at continue-as-new would come as much later as
      // the last run began after the job (at least one 800 ms model call). Event times, not the fire time, so server
      // load cannot skew it.
      const last = await env.client.workflow.getHandle(result.workflowId).fetchHistory();
      const firstRunId = last.events![0].workflowExecutionStartedEventAttributes!.firstExecutionRunId!;
      const first = await env.client.workflow.getHandle(result.workflowId, firstRunId).fetchHistory();
      // The workflow's clock is the time its task started (WorkflowTaskStarted): the job's deadline was computed at the
      // first run's first task, the last run's timer from the task that set it.
      const taskStartedBefore = (events: typeof last.events, index: number) =>
        ms(events!.slice(0, index).filter((e) => e.workflowTaskStartedEventAttributes).at(-1)!.eventTime);
      const jobStart = taskStartedBefore(first.events, first.events!.findIndex((e) => e.workflowTaskCompletedEventAttributes));
      const lastRunBegan = ms(last.events![0].eventTime) - jobStart;
      expect(lastRunBegan).toBeGreaterThanOrEqual(800);
      const timerAt = last.events!.findIndex((e) => e.timerStartedEventAttributes);
      const setFor = taskStartedBefore(last.events, timerAt) + ms(last.events![timerAt].timerStartedEventAttributes!.startToFireTimeout);
      expect(Math.abs(setFor - (jobStart + deadlineMs))).toBeLessThan(lastRunBegan / 2);
    });
  });

  it('a run that ends before its deadline completes normally', async () => {
    await agents.with({ script: [reply([text('quick answer')])] }, async ({ run }) => {
      const result = await run('fast', { deadlineMs: 60_000 });
      expect(result).toMatchObject({ status: 'completed', guard: null, partial: false, text: 'quick answer' });
    });
  });
});

describe('finish tool (outputSchema)', () => {
  const schema = {
    type: 'object',
    properties: { population: { type: 'integer' }, country: { type: 'string' } },
    required: ['population'],
  };

  it('ends the run when submit_answer is called with valid input; the result carries it as output', async () => {
    const script = [reply([text('Submitting.'), toolUse('submit_answer', { population: 68_606_000, country: 'France' })])];
    await agents.with({ script }, async ({ run, model }) => {
      const result = await run('population of France', { tools: [], outputSchema: schema });
      expect(result).toMatchObject({ status: 'completed', guard: null, partial: false, steps: 1, toolCalls: 1, text: 'Submitting.' });
      expect(result.output).toEqual({ population: 68_606_000, country: 'France' });
      const tools = bodyOf(model.requests[0]).tools as Array<{ name: string; input_schema: unknown }>;
      expect(tools.map((t) => t.name)).toEqual(['submit_answer']);
      expect(tools[0].input_schema).toEqual(schema);
    });
  });

  it('answers invalid input with an is_error result naming the violation, and the loop goes on', async () => {
    const script = [
      reply([toolUse('submit_answer', { population: 'about 68 million' })]),
      reply([toolUse('submit_answer', { population: 68_606_000 })]),
    ];
    await agents.with({ script }, async ({ run, model }) => {
      const result = await run('population of France', { tools: [], outputSchema: schema });
      expect(result).toMatchObject({ status: 'completed', steps: 2, toolCalls: 2, output: { population: 68_606_000 } });
      const [rejected] = blocksOf(messagesOf(answered(model)[1]).at(-1)!);
      expect(rejected).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_0_0', is_error: true });
      expect(rejected.content).toMatch(/\/population must be integer/);
    });
  });

  it('wraps a schema that is not an object in an `answer` property and unwraps the output', async () => {
    const listSchema = { type: 'array', items: { type: 'string' } };
    const script = [reply([toolUse('submit_answer', { answer: ['Paris', 'Lyon'] })])];
    await agents.with({ script }, async ({ run, model }) => {
      const result = await run('two cities', { tools: [], outputSchema: listSchema });
      expect(result).toMatchObject({ status: 'completed', output: ['Paris', 'Lyon'] });
      expect(result.text).toBe('["Paris","Lyon"]');
      const tools = bodyOf(model.requests[0]).tools as Array<{ name: string; input_schema: unknown }>;
      expect(tools[0].input_schema).toEqual({
        type: 'object',
        properties: { answer: listSchema },
        required: ['answer'],
        additionalProperties: false,
      });
    });
  });
});

describe('model options', () => {
  it('sends effort and thinking, and keeps thinking blocks with their signature in the transcript', async () => {
    const script = [
      reply([thinking('I need the calculator for this.', 'sig-abc123'), toolUse('calculator', { expression: '6 * 7' })]),
      reply([text('42')]),
    ];
    await agents.with({ script }, async ({ run, model }) => {
      const result = await run('six times seven', { effort: 'high', thinkingBudget: 2048 });
      expect(result).toMatchObject({ status: 'completed', text: '42' });
      const [first, second] = answered(model);
      for (const r of [first, second]) {
        expect(bodyOf(r).thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
        expect((bodyOf(r) as { output_config?: unknown }).output_config).toEqual({ effort: 'high' });
      }
      expect(blocksOf(messagesOf(second)[1])[0]).toEqual({
        type: 'thinking',
        thinking: 'I need the calculator for this.',
        signature: 'sig-abc123',
      });
    });
  });

  it('sends neither when not asked to', async () => {
    await agents.with({ script: [reply([text('ok')])] }, async ({ run, model }) => {
      await run('plain');
      expect(bodyOf(model.requests[0])).not.toHaveProperty('thinking');
      expect(bodyOf(model.requests[0])).not.toHaveProperty('output_config');
    });
  });
});

describe('prompt caching', () => {
  const script = [
    {
      ...reply([text('Computing.'), toolUse('calculator', { expression: '6 * 7' })]),
      usage: { input_tokens: 10, output_tokens: 20, cache_creation_input_tokens: 3000 },
    },
    { ...reply([text('42')]), usage: { input_tokens: 15, output_tokens: 5, cache_read_input_tokens: 3000 } },
  ];
  const cacheMarkers = (r: RecordedRequest) => (JSON.stringify(r.body).match(/"cache_control"/g) ?? []).length;

  it('is on by default: every request marks the last block of the last message, and only it', async () => {
    await agents.with({ script }, async ({ run, model }) => {
      const result = await run('six times seven');
      expect(result.status).toBe('completed');
      const requests = answered(model);
      expect(requests).toHaveLength(2);
      for (const r of requests) {
        expect(cacheMarkers(r)).toBe(1);
        expect(blocksOf(messagesOf(r).at(-1)!).at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
      }
      expect(blocksOf(messagesOf(requests[1]).at(-1)!).at(-1)!.type).toBe('tool_result');
      // Cache writes and reads are counted in the usage and the cost.
      expect(result.usage).toEqual({ input_tokens: 25, output_tokens: 25, cache_creation_input_tokens: 3000, cache_read_input_tokens: 3000 });
      const price = PRICES['claude-sonnet-5-5'];
      const expected =
        costUsd({ input_tokens: 10, output_tokens: 20, cache_creation_input_tokens: 3000, cache_read_input_tokens: 0 }, price) +
        costUsd({ input_tokens: 15, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 3000 }, price);
      expect(result.costUsd).toBeCloseTo(expected, 12);
    });
  });

  it('off: no cache_control anywhere in any request', async () => {
    await agents.with({ script }, async ({ run, model }) => {
      const result = await run('six times seven', { promptCaching: false, system: 'Be brief.' });
      expect(result.status).toBe('completed');
      expect(answered(model)).toHaveLength(2);
      for (const r of answered(model)) expect(cacheMarkers(r)).toBe(0);
    });
  });
});

describe('worker maxActivities', () => {
  /** Waits for a run started with the harness (both runs are started before either is awaited). */
  const resultOf = (workflowId: string) => getAgentResult(env.client, workflowId);

  /** Every request is answered after `delayMs`; counts how many are open at once. */
  function slowModel(delayMs: number) {
    const stats = { inFlight: 0, peak: 0, arrivals: [] as number[] };
    const script: Script = () => {
      stats.arrivals.push(Date.now());
      stats.inFlight++;
      stats.peak = Math.max(stats.peak, stats.inFlight);
      // Scheduled before the server's own delay timer, so it fires before the answer is sent.
      setTimeout(() => stats.inFlight--, delayMs);
      return { ...reply([text('done')]), delayMs };
    };
    return { stats, script };
  }

  it('maxActivities 1: two concurrent runs never have two model requests open at once', async () => {
    const { stats, script } = slowModel(600);
    // No tools (the harness would offer calculator and web_search): the slow model only answers with text.
    await withAgent(env, { script, maxActivities: 1 }, async ({ start }) => {
      const results = await Promise.all([await start('run one', { tools: [] }), await start('run two', { tools: [] })].map(resultOf));
      expect(results.map((r) => r.status)).toEqual(['completed', 'completed']);
    });
    expect(stats.arrivals).toHaveLength(2);
    expect(stats.peak).toBe(1);
  });

  it('without the bound, the same two runs do call the model at the same time (the measurement sees overlap)', async () => {
    const { stats, script } = slowModel(600);
    await agents.with({ script }, async ({ start }) => {
      const results = await Promise.all([await start('run one', { tools: [] }), await start('run two', { tools: [] })].map(resultOf));
      expect(results.map((r) => r.status)).toEqual(['completed', 'completed']);
    });
    expect(stats.peak).toBe(2);
  });
});
