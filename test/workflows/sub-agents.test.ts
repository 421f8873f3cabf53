// Sub-agents as child runs, against the real dev server, a real worker and the scripted model: a parent that
// delegates three tasks in one turn, one budget shared with its children, a cancel that reaches them.
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it, vi } from 'vitest';
import { cancelRun, getAgentResult, getStatus, getTranscript } from '../../src/client/index.js';
import { AgentTokens } from '../../src/core/search-attributes.js';
import { totalTokens } from '../../src/core/transcript.js';
import type { MessageParam, ModelReply, Usage } from '../../src/core/types.js';
import { apiError, reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import type { RecordedRequest } from '../../src/scripted/index.js';
import { eventKinds, eventMs, lastToolResults, useSharedAgent, useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();
/** A cancelled call acknowledges at its next heartbeat, sent every third of this (the default's 3 s otherwise). */
const ACK_HEARTBEAT_TIMEOUT_MS = 2_000;

const RESEARCHER = {
  researcher: { description: 'Researches one question and answers it.', system: 'You are the researcher.', tools: ['calculator'], maxSteps: 10 },
};

// One worker, with the researcher, for the tests that delegate to it; those with other sub-agents keep their own.
const shared = useSharedAgent(env, { agents: RESEARCHER });

const systemOf = (r: { system?: unknown }) => (typeof r.system === 'string' ? r.system : JSON.stringify(r.system ?? ''));
/** The task of a run, as the request carries it (its first message's text; the request adds a cache marker). */
const taskOf = (messages: MessageParam[]) => {
  const first = messages[0].content;
  return typeof first === 'string' ? first : first.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
};
const isChild = (r: RecordedRequest) => systemOf(r.body as { system?: unknown }).includes('researcher');

/** The parent delegates three questions in one turn, then answers from their results; each child makes one
 * calculator call (its first model call held until the test releases it) and answers. */
const delegateThree: Script = (req, turn) => {
  if (systemOf(req).includes('researcher')) {
    const task = taskOf(req.messages as MessageParam[]);
    if (turn === 0) return { ...reply([toolUse('calculator', { expression: '6 * 7' })]), hold: true };
    return reply([text(`Answer to ${task}: 42`)]);
  }
  if (turn === 0) return reply(['alpha', 'beta', 'gamma'].map((q) => toolUse('agent__researcher', { task: `question ${q}` })));
  const results = (req.messages as MessageParam[]).at(-1)!.content as Array<{ content?: unknown }>;
  return reply([text(`Summary: ${results.map((r) => String(r.content)).join(' | ')}`)]);
};

/** The usage of each callModel a run's history completed. */
async function ownModelUsage(workflowId: string): Promise<Usage[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = new Map<string, string>();
  const usage: Usage[] = [];
  for (const e of history.events ?? []) {
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(String(e.eventId), s.activityType?.name ?? '');
    const c = e.activityTaskCompletedEventAttributes;
    if (c && scheduled.get(String(c.scheduledEventId)) === 'callModel') {
      usage.push(defaultPayloadConverter.fromPayload<ModelReply>(c.result!.payloads![0]).usage);
    }
  }
  return usage;
}

describe('sub-agents', () => {
  it('runs three agent__ calls of one turn as three children at once and answers from their results, its usage theirs plus its own', async () => {
    await shared.with({ script: delegateThree }, async (h) => {
      const id = await h.start('Answer three questions', { tools: ['agent__researcher'] });
      // All three children's first model calls are held at the same time: they run in parallel.
      await h.model.waitForHeld(3, 20_000);
      h.model.release();
      const result = await getAgentResult(env.client, id);
      expect(result.status).toBe('completed');
      for (const q of ['alpha', 'beta', 'gamma']) expect(result.text).toContain(`Answer to question ${q}: 42`);

      const childIds = ['toolu_0_0', 'toolu_0_1', 'toolu_0_2'].map((t) => `${id}/${t}`);
      const children = await Promise.all(childIds.map((c) => getAgentResult(env.client, c)));
      for (const child of children) {
        expect(child.status).toBe('completed');
        expect(child.toolCalls).toBe(1);
      }
      // Visibility lists them with the parent as ParentWorkflowId.
      await vi.waitFor(
        async () => {
          const listed: string[] = [];
          for await (const w of env.client.workflow.list({ query: `ParentWorkflowId = "${id}"` })) listed.push(w.workflowId);
          expect(listed.sort()).toEqual([...childIds].sort());
        },
        { timeout: 15_000, interval: 500 },
      );
      const own = await ownModelUsage(id);
      expect(own).toHaveLength(2);
      const expected = totalTokens(own[0]) + totalTokens(own[1]) + children.reduce((n, c) => n + totalTokens(c.usage), 0);
      expect(totalTokens(result.usage)).toBe(expected);
      expect(result.usage.input_tokens).toBe(own[0].input_tokens + own[1].input_tokens + children.reduce((n, c) => n + c.usage.input_tokens, 0));
      expect(h.model.requests.filter(isChild)).toHaveLength(6);
      // The parent's search attributes count its children's tokens too.
      expect((await env.client.workflow.getHandle(id).describe()).typedSearchAttributes.get(AgentTokens)).toBe(totalTokens(result.usage));
    });
  });

  it('stops children that would overspend the parent budget, and the parent stops on budget within one call of it', async () => {
    const CALL = 1_000;
    const spendForever: Script = (req, turn) => {
      const usage = { input_tokens: CALL - 50, output_tokens: 50 };
      if (systemOf(req).includes('researcher')) return { ...reply([toolUse('calculator', { expression: `${turn} + 1` })]), usage, delayMs: 200 };
      if (turn === 0) return { ...reply([toolUse('agent__researcher', { task: 'count a' }), toolUse('agent__researcher', { task: 'count b' })]), usage };
      return { ...reply([text('done')]), usage };
    };
    const budget = 8_000;
    await withAgent(env, { script: spendForever, agents: { researcher: { ...RESEARCHER.researcher, maxSteps: 50 } } }, async (h) => {
      const result = await h.run('Count', { tools: ['agent__researcher'], budgetTokens: budget });
      expect(result.status).toBe('stopped');
      expect(result.guard).toBe('budget');
      const spent = totalTokens(result.usage);
      expect(Math.abs(spent - budget)).toBeLessThanOrEqual(CALL);
      for (const c of ['toolu_0_0', 'toolu_0_1']) {
        const child = await getAgentResult(env.client, `${result.workflowId}/${c}`);
        expect(child.status).toBe('stopped');
        expect(child.guard).toBe('budget');
      }
      expect(h.model.requests.filter(isChild).length).toBeLessThan(2 * 50);
    });
  });

  it('cancel of the parent leaves no child running: each closes, cancelled, with its partial answer', async () => {
    const heldChildren: Script = (req, turn) => {
      if (systemOf(req).includes('researcher')) return { ...reply([text('never')]), hold: true };
      if (turn === 0) return reply([toolUse('agent__researcher', { task: 'slow a' }), toolUse('agent__researcher', { task: 'slow b' })]);
      return reply([text('done')]);
    };
    await shared.with({ script: heldChildren }, async (h) => {
      // The children's held calls acknowledge the cancel at their next heartbeat: a 2 s heartbeat timeout (inherited by
      // the children) beats every 667 ms instead of the default's 3 s.
      const id = await h.start('Slow work', { tools: ['agent__researcher'], heartbeatTimeoutMs: ACK_HEARTBEAT_TIMEOUT_MS });
      await h.model.waitForHeld(2, 20_000);
      await cancelRun(env.client, id);
      const childIds = [`${id}/toolu_0_0`, `${id}/toolu_0_1`];
      await vi.waitFor(
        async () => {
          for (const c of childIds) expect((await env.client.workflow.getHandle(c).describe()).status.name).not.toBe('RUNNING');
        },
        { timeout: 30_000, interval: 250 },
      );
      const parent = await getAgentResult(env.client, id);
      expect(parent.status).toBe('cancelled');
      for (const c of childIds) expect((await getAgentResult(env.client, c)).status).toBe('cancelled');
    });
  });

  it("rolls a child's usage into the parent's as the child reports it, before the child ends", async () => {
    const reportsThenHolds: Script = (req, turn) => {
      if (systemOf(req).includes('researcher')) {
        if (turn === 0) return { ...reply([toolUse('calculator', { expression: '1 + 1' })]), usage: { input_tokens: 5_000, output_tokens: 10 } };
        return { ...reply([text('done')]), hold: true };
      }
      if (turn === 0) return { ...reply([toolUse('agent__researcher', { task: 'one question' })]), usage: { input_tokens: 100, output_tokens: 10 } };
      return reply([text('ok')]);
    };
    await shared.with({ script: reportsThenHolds }, async (h) => {
      const id = await h.start('Delegate one', { tools: ['agent__researcher'] });
      await h.model.waitForHeld(1, 20_000); // the child's second call: its first is done and reported
      await vi.waitFor(
        async () => {
          const report = await getStatus(env.client, id);
          expect(report.live).toBe(true);
          expect(report.view?.usage.input_tokens).toBe(5_100);
          expect(report.children).toEqual([expect.objectContaining({ workflowId: `${id}/toolu_0_0`, agent: 'researcher', status: 'running', steps: 1 })]);
        },
        { timeout: 10_000, interval: 250 },
      );
      h.model.release();
      expect((await getAgentResult(env.client, id)).status).toBe('completed');
    });
  });

  it('a child stopped by a guard answers with its partial answer and a note; a failed child is an error naming why', async () => {
    const agents = {
      looper: { description: 'Loops.', system: 'You are the looper.', tools: ['calculator'], maxSteps: 1 },
      broken: { description: 'Fails.', system: 'You are the broken one.' },
    };
    const script: Script = (req, turn) => {
      const system = systemOf(req);
      if (system.includes('looper')) {
        return req.tool_choice?.type === 'none' ? reply([text('Partial: I counted to one.')]) : reply([toolUse('calculator', { expression: '1 + 1' })]);
      }
      if (system.includes('broken')) return apiError(401, 'authentication_error', 'invalid x-api-key');
      if (turn === 0) return reply([toolUse('agent__looper', { task: 'count' }), toolUse('agent__broken', { task: 'fail' })]);
      return reply([text('done')]);
    };
    await withAgent(env, { script, agents }, async (h) => {
      const id = await h.start('Two kinds of children', { tools: ['agent__looper', 'agent__broken'] });
      const result = await getAgentResult(env.client, id);
      expect(result.status).toBe('completed');
      const last = h.model.requests.filter((r) => !systemOf(r.body as { system?: unknown }).includes('You are')).at(-1)!;
      const results = (last.body as { messages: MessageParam[] }).messages.at(-1)!.content as Array<{ content: unknown; is_error?: boolean }>;
      expect(results[0].is_error).toBeUndefined();
      expect(String(results[0].content)).toMatch(
        new RegExp(`^Partial: I counted to one\\.\\n\\n\\[Partial answer: the sub-agent "looper" \\(${id}/toolu_0_0\\) did not finish: it was stopped by its max_steps guard`),
      );
      expect(results[1].is_error).toBe(true);
      expect(String(results[1].content)).toMatch(new RegExp(`^Sub-agent "broken" \\(${id}/toolu_0_1\\) failed: .*invalid x-api-key`));
    });
  });

  it('terminate of the parent terminates its running children (parent close policy)', async () => {
    const held: Script = (req, turn) =>
      systemOf(req).includes('researcher') ? { ...reply([text('never')]), hold: true } : turn === 0 ? reply([toolUse('agent__researcher', { task: 'slow' })]) : reply([text('done')]);
    await shared.with({ script: held }, async (h) => {
      const id = await h.start('Slow work', { tools: ['agent__researcher'] });
      await h.model.waitForHeld(1, 20_000);
      await env.client.workflow.getHandle(id).terminate('operator says stop');
      await vi.waitFor(
        async () => expect((await env.client.workflow.getHandle(`${id}/toolu_0_0`).describe()).status.name).toBe('TERMINATED'),
        { timeout: 15_000, interval: 250 },
      );
    });
  });

  it("a parent whose budget its children's reports spend cancels the children still running, which end with partial answers", async () => {
    // A's one call overshoots its share (8,000 of 4,950); B, within its own, reports the call that takes the parent over
    // (100 + 8,000 + 2 × 1,000 of 10,000) and is cancelled in its next.
    const script: Script = (req, turn) => {
      const task = taskOf(req.messages as MessageParam[]);
      if (systemOf(req).includes('researcher')) {
        if (task === 'big') return { ...reply([text('A big answer.')]), usage: { input_tokens: 8_000, output_tokens: 0 } };
        if (turn < 2) return { ...reply([text(`B, call ${turn}.`), toolUse('calculator', { expression: `${turn} + 1` })]), usage: { input_tokens: 1_000, output_tokens: 0 }, delayMs: 500 };
        return { ...reply([text('never')]), hold: true };
      }
      if (turn === 0) return { ...reply([toolUse('agent__researcher', { task: 'big' }), toolUse('agent__researcher', { task: 'small' })]), usage: { input_tokens: 100, output_tokens: 0 } };
      return reply([text('done')]);
    };
    await shared.with({ script }, async (h) => {
      // B's held call acknowledges its cancel at its next heartbeat (every 667 ms with this timeout, inherited).
      const result = await h.run('Spend', { tools: ['agent__researcher'], budgetTokens: 10_000, heartbeatTimeoutMs: ACK_HEARTBEAT_TIMEOUT_MS });
      expect(result).toMatchObject({ status: 'stopped', guard: 'budget' });
      expect(totalTokens(result.usage)).toBe(10_100);
      const b = await getAgentResult(env.client, `${result.workflowId}/toolu_0_1`);
      expect(b.status).toBe('cancelled');
      const transcript = await getTranscript(env.client, result.workflowId);
      const results = transcript[2].content as Array<{ content: unknown }>;
      expect(String(results[1].content)).toMatch(/^B, call 1\.\n\n\[Partial answer: .* it was stopped \(the parent run's budget is spent \(token budget spent: 10100 of 10000 tokens\)\)\.\]$/);
    });
  });

  it("a child whose final answer spends the parent's budget cancels its siblings still running, which end with partial answers", async () => {
    // A answers at once with one call over its share, which its result (not a report: a last call is never reported)
    // brings to the parent: 100 + 10,000 of 10,000. B holds its first call: only the parent's cancel ends it.
    const script: Script = (req, turn) => {
      const task = taskOf(req.messages as MessageParam[]);
      if (systemOf(req).includes('researcher')) {
        if (task === 'big') return { ...reply([text('A big answer.')]), usage: { input_tokens: 10_000, output_tokens: 0 } };
        return { ...reply([text('never')]), hold: true };
      }
      if (turn === 0) return { ...reply([toolUse('agent__researcher', { task: 'big' }), toolUse('agent__researcher', { task: 'small' })]), usage: { input_tokens: 100, output_tokens: 0 } };
      return reply([text('done')]);
    };
    await shared.with({ script }, async (h) => {
      // B's held call acknowledges its cancel at its next heartbeat (every 667 ms with this timeout, inherited).
      const id = await h.start('Spend', { tools: ['agent__researcher'], budgetTokens: 10_000, heartbeatTimeoutMs: ACK_HEARTBEAT_TIMEOUT_MS });
      const b = `${id}/toolu_0_1`;
      await vi.waitFor(async () => expect((await env.client.workflow.getHandle(b).describe()).status.name).not.toBe('RUNNING'), { timeout: 20_000, interval: 250 });
      expect((await getAgentResult(env.client, b)).status).toBe('cancelled');
      const result = await getAgentResult(env.client, id);
      expect(result).toMatchObject({ status: 'stopped', guard: 'budget' });
      expect(totalTokens(result.usage)).toBe(10_100);
      const transcript = await getTranscript(env.client, id);
      const results = transcript[2].content as Array<{ content: unknown }>;
      expect(String(results[1].content)).toMatch(/^\[Partial answer: .* it was stopped \(the parent run's budget is spent \(token budget spent: 10100 of 10000 tokens\)\)\.\]$/);
    });
  });

  it("under a dollar budget, a sub-agent whose model has no price is not started: the call is an error naming the model and the fix", async () => {
    // Unpriced, the child's cost would be null: neither its share of the budget nor the parent's guard could see it.
    const agents = { pricey: { description: 'Spends.', system: 'You are pricey.', model: 'claude-unpriced-9', tools: ['calculator'], maxSteps: 5 } };
    const script: Script = (req, turn) => {
      if (systemOf(req).includes('pricey')) return { ...reply([toolUse('calculator', { expression: `${turn} + 1` })]), usage: { input_tokens: 1_000_000, output_tokens: 0 } };
      if (turn === 0) return reply([toolUse('agent__pricey', { task: 'spend' })]);
      return reply([text('done')]);
    };
    await withAgent(env, { script, agents }, async (h) => {
      const result = await h.run('Delegate', { tools: ['agent__pricey'], budgetUsd: 1 });
      expect(result.status).toBe('completed');
      expect(h.model.requests.filter((r) => systemOf(r.body as { system?: unknown }).includes('pricey'))).toHaveLength(0);
      const [toolResult] = lastToolResults(h.model.requests);
      expect(toolResult.is_error).toBe(true);
      expect(String(toolResult.content)).toBe(
        `Sub-agent "pricey" (${result.workflowId}/toolu_0_0) was not started: its model "claude-unpriced-9" has no price, so a dollar budget cannot bound its spend (give the model's price in the run's prices, or use budgetTokens)`,
      );
    });
  });

  it("a child's deadline comes a little before its parent's: it stops with a partial answer the parent still reads", async () => {
    const held: Script = (req, turn) =>
      systemOf(req).includes('researcher')
        ? { ...reply([text('never')]), hold: true }
        : turn === 0
          ? reply([toolUse('agent__researcher', { task: 'slow' })])
          : reply([text('The researcher ran out of time.')]);
    await shared.with({ script: held }, async (h) => {
      // 12 s: the child's deadline then comes the whole DEADLINE_MARGIN_MS (2 s) before the parent's, the time the parent
      // has to read the partial answer and finish. With 5 s the margin was a fifth of it (under 1 s), and a machine
      // loaded by three test suites at once let the parent's own deadline fire first (seen once, 2026-12-06).
      const result = await h.run('Slow work', { tools: ['agent__researcher'], deadlineMs: 12_000 });
      // The parent finished on its own (its deadline's timer never fired); the child's did, set for less than the parent's.
      expect(result).toMatchObject({ status: 'completed', text: 'The researcher ran out of time.' });
      const childId = `${result.workflowId}/toolu_0_0`;
      const child = await getAgentResult(env.client, childId);
      expect(child).toMatchObject({ status: 'stopped', guard: 'deadline' });
      const parentEvents = (await env.client.workflow.getHandle(result.workflowId).fetchHistory()).events;
      const childEvents = (await env.client.workflow.getHandle(childId).fetchHistory()).events;
      expect(eventKinds(parentEvents)).not.toContain('TimerFired');
      expect(eventKinds(childEvents)).toContain('TimerFired');
      const timeout = (events: typeof parentEvents) => eventMs(events!.find((e) => e.timerStartedEventAttributes)!.timerStartedEventAttributes!.startToFireTimeout);
      expect(timeout(childEvents)).toBeLessThan(timeout(parentEvents));
      const transcript = await getTranscript(env.client, result.workflowId);
      const [toolResult] = transcript[2].content as Array<{ content: unknown }>;
      expect(String(toolResult.content)).toMatch(/^\[Partial answer: the sub-agent "researcher" \(.*\) did not finish: it was stopped by its deadline guard/);
    });
  });

  it("offers a sub-agent's own input schema with { task }, and its child reads that input after the task", async () => {
    const agents = {
      researcher: { ...RESEARCHER.researcher, inputSchema: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'] } },
    };
    const script: Script = (req, turn) => {
      if (systemOf(req).includes('researcher')) return reply([text(`Got: ${taskOf(req.messages as MessageParam[])}`)]);
      if (turn === 0) return reply([toolUse('agent__researcher', { task: 'Find the population.', country: 'France' })]);
      const [result] = (req.messages as MessageParam[]).at(-1)!.content as Array<{ content: unknown }>;
      return reply([text(String(result.content))]);
    };
    await withAgent(env, { script, agents }, async (h) => {
      const result = await h.run('Delegate with input', { tools: ['agent__researcher'] });
      expect(result.text).toBe('Got: Find the population.\n\nInput:\n{\n  "country": "France"\n}');
      const offered = (h.model.requests[0].body as { tools: Array<{ name: string; input_schema: unknown }> }).tools;
      expect(offered.find((t) => t.name === 'agent__researcher')?.input_schema).toMatchObject({
        properties: { task: { type: 'string' }, country: { type: 'string' } },
        required: ['task', 'country'],
      });
    });
  });

  it('nests to the depth limit: a grandchild runs under its own id, its spend rolls up to the top; beyond the limit no agent is offered', async () => {
    const agents = {
      lead: { description: 'Leads.', system: 'You are the lead.', tools: ['agent__worker'] },
      worker: { description: 'Works.', system: 'You are the worker.', tools: ['calculator'] },
    };
    const offered = (r: RecordedRequest) => ((r.body as { tools?: Array<{ name: string }> }).tools ?? []).map((t) => t.name);
    const script: Script = (req, turn) => {
      const system = systemOf(req);
      const usage = { input_tokens: 1_000, output_tokens: 0 };
      if (system.includes('worker')) return { ...reply([text('worked')]), usage };
      const delegate = system.includes('lead') ? 'agent__worker' : 'agent__lead';
      const isOffered = (req.tools ?? []).some((t) => 'name' in t && t.name === delegate);
      if (turn === 0 && isOffered) return { ...reply([toolUse(delegate, { task: 'go' })]), usage };
      return { ...reply([text(isOffered || turn > 0 ? 'done' : 'nothing to delegate to')]), usage };
    };
    await withAgent(env, { script, agents }, async (h) => {
      const deep = await h.run('Nest', { tools: ['agent__lead'] });
      expect(deep.status).toBe('completed');
      const grandchild = await getAgentResult(env.client, `${deep.workflowId}/toolu_0_0/toolu_0_0`);
      expect(grandchild).toMatchObject({ status: 'completed', text: 'worked' });
      // Top: 2 calls; lead: 2; worker: 1.
      expect(totalTokens(deep.usage)).toBe(5_000);

      const shallow = await h.run('Nest, shallow', { tools: ['agent__lead'], maxAgentDepth: 1 });
      const lead = await getAgentResult(env.client, `${shallow.workflowId}/toolu_0_0`);
      expect(lead.text).toBe('nothing to delegate to');
      const leadRequests = h.model.requests.filter((r) => systemOf(r.body as { system?: unknown }).includes('lead'));
      expect(offered(leadRequests.at(-1)!)).not.toContain('agent__worker');
    });
  });
});
