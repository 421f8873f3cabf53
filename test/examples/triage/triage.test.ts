// The triage bot end to end on a real Temporal dev server and a real worker, with the example's scripted model
// reached through the real Anthropic SDK: the whole story, side effects exactly once under a retried activity,
// a broken store ending the run through the error-streak guard, and a denied comment.
import { describe, expect, it } from 'vitest';
import { triageScript } from '../../../examples/triage/scripted-model.js';
import { IssueStore, SEED_FILE } from '../../../examples/triage/store.js';
import { triageTools } from '../../../examples/triage/tools/index.js';
import { denyToolCall, getAgentResult, getStatus, getTranscript } from '../../../src/client/index.js';
import type { AgentStatusView } from '../../../src/core/types.js';
import type { RecordedRequest } from '../../../src/scripted/index.js';
import { defineTool } from '../../../src/tools/types.js';
import { definitionOf, eventually, scheduledActivities, useSharedAgent, useTestEnv } from '../../helpers/harness.js';
import { freshStore } from './fixture.js';
import { writeFileSync } from 'node:fs';

const env = useTestEnv();
const TOOLS = ['search_issues', 'get_issue', 'add_label', 'add_comment'];
// One worker for all the file's tests: the four tools by definition (each test brings them on a fresh store).
const agents = useSharedAgent(env, { tools: triageTools(new IssueStore(SEED_FILE)).map(definitionOf) });

interface ToolCallSeen {
  name: string;
  input: Record<string, unknown>;
  result: string;
  isError: boolean;
}

/** Every tool call of a finished run with its result, in order, read from the run's transcript. */
async function toolCalls(workflowId: string): Promise<ToolCallSeen[]> {
  const messages = (await getTranscript(env.client, workflowId)) as Array<{ role: string; content: unknown }>;
  const calls: ToolCallSeen[] = [];
  for (const [i, message] of messages.entries()) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    const results = messages[i + 1]?.content as Array<{ tool_use_id: string; content: string; is_error?: boolean }>;
    for (const block of message.content as Array<{ type: string; id: string; name: string; input: Record<string, unknown> }>) {
      if (block.type !== 'tool_use') continue;
      const result = results.find((r) => r.tool_use_id === block.id)!;
      calls.push({ name: block.name, input: block.input, result: result.content, isError: result.is_error === true });
    }
  }
  return calls;
}

const answered = (requests: RecordedRequest[]) => requests.filter((r) => r.status === 200);

describe('the triage bot', () => {
  it('triages #39: reads it, searches its title, reads #21, labels and comments "Duplicate of #21", then summarises', async () => {
    const s = freshStore();
    try {
      await agents.with({ script: triageScript, tools: triageTools(s.store) }, async (h) => {
        const workflowId = await h.start('Triage issue #39', { tools: TOOLS });
        const result = await getAgentResult(env.client, workflowId);
        expect(result).toMatchObject({ status: 'completed', toolCalls: 5, steps: 5 });
        expect(result.text).toBe(
          'Issue #39 ("Login times out behind our corporate proxy") is a duplicate of #21 ("Login request times out when an HTTP proxy is configured"). ' +
            'I labelled #39 "duplicate". I commented "Duplicate of #21" on #39.',
        );
        const calls = await toolCalls(workflowId);
        expect(calls.map((c) => [c.name, c.input])).toEqual([
          ['get_issue', { number: 39 }],
          ['search_issues', { query: 'Login times out behind our corporate proxy' }],
          ['get_issue', { number: 21 }],
          ['add_label', { number: 39, label: 'duplicate' }],
          ['add_comment', { number: 39, body: 'Duplicate of #21' }],
        ]);
        expect(calls.every((c) => !c.isError)).toBe(true);
        expect(calls[1].result.split('\n')[1]).toBe('#21 [open] Login request times out when an HTTP proxy is configured');
        // Each tool call is its own activity; label and comment ran in one turn.
        expect(await scheduledActivities(env.client, workflowId)).toEqual([
          'callModel', 'runTool', 'callModel', 'runTool', 'callModel', 'runTool', 'callModel', 'runTool', 'runTool', 'callModel',
        ]);
        // The store holds the triage, recorded under the tool calls' idempotency keys.
        expect(s.issue(39).labels).toEqual(['duplicate']);
        expect(s.issue(39).comments.map((c) => [c.author, c.body])).toEqual([['triage-bot', 'Duplicate of #21']]);
        expect(Object.keys(s.data().effects).sort()).toEqual([`${workflowId}/toolu_3_1`, `${workflowId}/toolu_3_2`]);
        // Triaging it again reads the label and leaves the issue alone.
        const again = await h.run('Triage issue #39', { tools: TOOLS });
        expect(again.text).toMatch(/^#39 \("Login times out behind our corporate proxy"\) is already labelled duplicate/);
        expect(s.issue(39).comments).toHaveLength(1);
      });
    } finally {
      s.remove();
    }
  });

  it('#38 is marked a duplicate of #12 (which search ranks above the near miss #28); #40 duplicates nothing and is left unlabelled', async () => {
    const s = freshStore();
    try {
      await agents.with({ script: triageScript, tools: triageTools(s.store) }, async (h) => {
        const pdf = await h.run('Triage issue #38', { tools: TOOLS });
        expect(pdf.text).toMatch(/^Issue #38 \("Long code lines are cut off in exported PDFs"\) is a duplicate of #12 /);
        expect(s.issue(38).comments.map((c) => c.body)).toEqual(['Duplicate of #12']);
        const menu = await h.run('Triage issue #40', { tools: TOOLS });
        expect(menu.status).toBe('completed');
        expect(menu.text).toMatch(/^#40 \("Add a 'Copy as Markdown' item to the context menu"\) does not duplicate an earlier issue/);
        expect(s.issue(40)).toMatchObject({ labels: [], comments: [] });
      });
    } finally {
      s.remove();
    }
  });

  it('comments once when the add_comment activity fails after its write and Temporal retries it', async () => {
    const s = freshStore();
    try {
      const tools = triageTools(s.store);
      const comment = tools[3];
      let attempts = 0;
      // The first attempt's result is lost after the effect was written: an infrastructure failure.
      const flaky = defineTool<{ number: number; body: string }>({
        ...comment,
        async execute(input, context) {
          const answer = await comment.execute(input, context);
          if (++attempts === 1) throw new Error('connection reset while reporting the result');
          return answer;
        },
      });
      await agents.with({ script: triageScript, tools: [...tools.slice(0, 3), flaky] }, async (h) => {
        const result = await h.run('Triage issue #39', { tools: TOOLS });
        expect(result.status).toBe('completed');
        expect(attempts).toBe(2);
        expect(s.issue(39).comments.map((c) => c.body)).toEqual(['Duplicate of #21']);
        expect(s.issue(39).labels).toEqual(['duplicate']);
      });
    } finally {
      s.remove();
    }
  });

  it('a broken store: every search is an error naming the cause, and the error-streak guard ends the run with a partial answer', async () => {
    const s = freshStore();
    writeFileSync(s.path, '{"issues": [ truncated');
    try {
      await agents.with({ script: triageScript, tools: triageTools(s.store) }, async (h) => {
        const workflowId = await h.start('Triage issue #39', { tools: TOOLS });
        const result = await getAgentResult(env.client, workflowId);
        expect(result).toMatchObject({ status: 'stopped', guard: 'error_streak', partial: true, toolCalls: 3 });
        const calls = await toolCalls(workflowId);
        expect(calls.map((c) => c.name)).toEqual(['get_issue', 'search_issues', 'search_issues']);
        for (const call of calls) {
          expect(call.isError).toBe(true);
          expect(call.result).toMatch(/^issue store unreadable: .*issues\.json is not valid JSON/);
        }
        // The summary call (tools off) produced the partial answer, which names the cause.
        const last = answered(h.model.requests).at(-1)!.body as { tool_choice?: { type: string } };
        expect(last.tool_choice).toEqual({ type: 'none' });
        expect(result.text).toMatch(/^Partial answer: I could not finish triaging issue #39\. The last of 3 failed tool calls said: issue store unreadable: /);
        expect(result.text).toContain('Nothing was labelled or commented.');
      });
    } finally {
      s.remove();
    }
  });

  it('--approve add_comment: the comment waits for a decision; denied, it is not posted and the model reports it', async () => {
    const s = freshStore();
    try {
      await agents.with({ script: triageScript, tools: triageTools(s.store) }, async (h) => {
        const workflowId = await h.start('Triage issue #39', { tools: TOOLS, approve: ['add_comment'] });
        const waiting = (await eventually(
          async () => {
            const status = await getStatus(env.client, workflowId);
            return status.live ? status.view : null;
          },
          (v): v is AgentStatusView => v !== null && v.status === 'awaiting_approval',
          30_000,
        )) as AgentStatusView;
        expect(waiting.pendingApprovals).toEqual([
          { toolUseId: 'toolu_3_2', name: 'add_comment', input: { number: 39, body: 'Duplicate of #21' } },
        ]);
        // Only the comment waits: the label of the same turn is not held back.
        await eventually(async () => s.issue(39).labels, (labels) => labels.includes('duplicate'));
        expect(s.issue(39).comments).toEqual([]);

        await denyToolCall(env.client, workflowId, 'toolu_3_2', 'we do not post on customer issues from the bot yet');
        const result = await getAgentResult(env.client, workflowId);
        expect(result.status).toBe('completed');
        expect(result.text).toContain('I labelled #39 "duplicate".');
        expect(result.text).toContain(
          'The comment "Duplicate of #21" was not posted: A human reviewer denied this call to add_comment: we do not post on customer issues from the bot yet.',
        );
        expect(s.issue(39).comments).toEqual([]);
        expect(Object.values(s.data().effects).map((e) => e.tool)).toEqual(['add_label']);
      });
    } finally {
      s.remove();
    }
  });
});
