// Sub-agents as child runs, against the real dev server, a real worker and the scripted model: a parent that
// delegates three tasks in one turn, one budget shared with its children, a cancel that reaches them.
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it, vi } from 'vitest';
import { cancelRun, getAgentResult } from '../../src/client/index.js';
import { totalTokens } from '../../src/core/transcript.js';
import type { MessageParam, ModelReply, Usage } from '../../src/core/types.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import type { RecordedRequest } from '../../src/scripted/index.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();

const RESEARCHER = {
  researcher: { description: 'Researches one question and answers it.', system: 'You are the researcher.', tools: ['calculator'], maxSteps: 10 },
};

const systemOf = (r: { system?: unknown }) => (typeof r.system === 'string' ? r.system : JSON.stringify(r.system ?? ''));
const taskOf = (messages: MessageParam[]) => (typeof messages[0].content === 'string' ? messages[0].content : '');
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
    await withAgent(env, { script: delegateThree, agents: RESEARCHER }, async (h) => {
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

  it('cancel of the parent leaves no child running: each closes within 15 s with its partial answer', async () => {
    const heldChildren: Script = (req, turn) => {
      if (systemOf(req).includes('researcher')) return { ...reply([text('never')]), hold: true };
      if (turn === 0) return reply([toolUse('agent__researcher', { task: 'slow a' }), toolUse('agent__researcher', { task: 'slow b' })]);
      return reply([text('done')]);
    };
    await withAgent(env, { script: heldChildren, agents: RESEARCHER }, async (h) => {
      const id = await h.start('Slow work', { tools: ['agent__researcher'] });
      await h.model.waitForHeld(2, 20_000);
      const cancelledAt = Date.now();
      await cancelRun(env.client, id);
      const childIds = [`${id}/toolu_0_0`, `${id}/toolu_0_1`];
      await vi.waitFor(
        async () => {
          for (const c of childIds) expect((await env.client.workflow.getHandle(c).describe()).status.name).not.toBe('RUNNING');
        },
        { timeout: 15_000, interval: 250 },
      );
      expect(Date.now() - cancelledAt).toBeLessThan(15_000);
      const parent = await getAgentResult(env.client, id);
      expect(parent.status).toBe('cancelled');
      for (const c of childIds) expect((await getAgentResult(env.client, c)).status).toBe('cancelled');
    });
  });
});
