// replayRuns: recorded runs replayed with the current code, as a vitest test would use it. Real dev server, real
// worker for the recorded runs, the scripted model through the real SDK; the replay itself needs no worker.
import { describe, expect, it, vi } from 'vitest';
import { denyToolCall, getAgentResult, getStatus, replayRuns } from '../../src/client/index.js';
import { apiError, reply, startScriptedModel, text, toolUse, type MessagesRequestBody, type Script } from '../../src/scripted/index.js';
import { systemText } from '../../src/scripted/script.js';
import { builtinTools } from '../../src/tools/registry.js';
import { defineTool, type AgentTool } from '../../src/tools/types.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();

const stepOf = (req: MessagesRequestBody) => req.messages.filter((m) => m.role === 'assistant').length + 1;
/** Step 1 computes, step 2 computes again (or searches, when the system prompt says SEARCH), step 3 answers. */
const script: Script = (req) => {
  const step = stepOf(req);
  if (step === 1) return reply([toolUse('calculator', { expression: '6*7' }), toolUse('notify', { text: 'computed' })]);
  if (step === 2) {
    return systemText(req.system).includes('SEARCH') ? reply([toolUse('web_search', { query: 'six times seven' })]) : reply([toolUse('calculator', { expression: '42+1' })]);
  }
  return reply([text('43')]);
};

/** A side-effecting tool (not read-only): a replay skips it. */
const sent: string[] = [];
const notify: AgentTool = defineTool<{ text: string }>({
  name: 'notify',
  description: 'Sends a notification.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: async ({ text }) => {
    sent.push(text);
    return 'sent';
  },
});

/** The calculator as changed since: it answers in words. */
const changedCalculator = defineTool<{ expression: string }>({
  name: 'calculator',
  description: 'Evaluates an arithmetic expression.',
  inputSchema: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
  readOnly: true,
  execute: async ({ expression }) => `the answer to ${expression} is a number`,
}) as AgentTool;

async function recordRuns(count: number): Promise<string[]> {
  return withAgent(env, { script, tools: [...builtinTools, notify] as AgentTool[] }, async ({ start }) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await start(`compute ${i}`, { tools: ['calculator', 'web_search', 'notify'] }));
    for (const id of ids) expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', steps: 3 });
    return ids;
  });
}

describe('replayRuns', () => {
  it('3 recorded runs with unchanged tools: every step agrees; the tool not declared read-only is skipped, not called', async () => {
    const ids = await recordRuns(3);
    const callsBefore = sent.length;
    const report = await replayRuns(env.client, { workflowIds: ids, tools: [...builtinTools, notify] });
    expect(report.diverged).toBe(false);
    expect(report.runs.map((r) => r.workflowId)).toEqual(ids);
    for (const run of report.runs) {
      expect(run.firstDivergence).toBeNull();
      expect(run.steps.map((s) => [s.step, s.agrees])).toEqual([[1, true], [2, true], [3, true]]);
      expect(run.steps.flatMap((s) => s.tools.filter((t) => t.status === 'agrees').map((t) => t.name))).toEqual(['calculator', 'calculator']);
      expect(run.skippedTools).toEqual(['notify: not declared read-only (readOnly: true; --all-tools calls it anyway)']);
    }
    expect(sent.length).toBe(callsBefore);
    // With allTools, the side-effecting tool is called again (and agrees).
    const all = await replayRuns(env.client, { workflowIds: ids.slice(0, 1), tools: [...builtinTools, notify], allTools: true });
    expect(all.diverged).toBe(false);
    expect(sent.length).toBe(callsBefore + 1);
  });

  it('a tool that now returns a different result: the report names the run, the step and the tool, recorded vs new', async () => {
    const [id] = await recordRuns(1);
    const report = await replayRuns(env.client, { workflowIds: [id], tools: [changedCalculator, notify] });
    expect(report.diverged).toBe(true);
    const run = report.runs[0];
    expect(run.workflowId).toBe(id);
    expect(run.firstDivergence).toMatchObject({ step: 1, what: 'tool calculator' });
    expect(run.firstDivergence!.diff).toContain('recorded: 42');
    expect(run.firstDivergence!.diff).toContain('new: the answer to 6*7 is a number');
    expect(run.steps.map((s) => s.agrees)).toEqual([false, false, true]);
  });

  it('with a live model: agreement at every step, one request a step; a system prompt that changes its choice names the first disagreeing step', async () => {
    const [id] = await recordRuns(1);
    const model = await startScriptedModel({ script });
    try {
      const same = await replayRuns(env.client, { workflowIds: [id], tools: [...builtinTools, notify], liveModel: { apiKey: 'test', baseURL: model.url } });
      expect(same.diverged).toBe(false);
      expect(same.runs[0].steps.map((s) => s.model?.agrees)).toEqual([true, true, true]);
      expect(model.requests).toHaveLength(3);
      // Each request carries the recorded conversation up to its step.
      expect(model.requests.map((r) => (r.body as MessagesRequestBody).messages.length)).toEqual([1, 3, 5]);

      const steered = await replayRuns(env.client, {
        workflowIds: [id],
        tools: [...builtinTools, notify],
        liveModel: { apiKey: 'test', baseURL: model.url, settings: { system: 'SEARCH before you compute' } },
      });
      expect(steered.diverged).toBe(true);
      expect(steered.runs[0].firstDivergence).toMatchObject({ step: 2, what: 'model' });
      // Past the first disagreement the model is not asked again (the recorded conversation is no longer its own).
      expect(steered.runs[0].steps.map((s) => s.model?.agrees)).toEqual([true, false, undefined]);
      expect(steered.runs[0].steps[1].model).toMatchObject({
        recorded: [{ name: 'calculator', input: { expression: '42+1' } }],
        current: [{ name: 'web_search', input: { query: 'six times seven' } }],
      });
    } finally {
      await model.close();
    }
  });

  it('with a live model: a request the model refuses for one run (400) marks that run, and the other runs are still replayed', async () => {
    const ids = await recordRuns(2);
    // The first run's conversation is refused (as a prompt past the model's window would be); the second's is not.
    const refusing: Script = (req) =>
      JSON.stringify(req.messages).includes('compute 0') ? apiError(400, 'invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum') : script(req, 0);
    const model = await startScriptedModel({ script: refusing });
    try {
      const report = await replayRuns(env.client, { workflowIds: ids, tools: [...builtinTools, notify], liveModel: { apiKey: 'test', baseURL: model.url } });
      expect(report.diverged).toBe(true);
      expect(report.runs.map((r) => r.workflowId)).toEqual(ids);
      expect(report.runs[0].error).toMatch(/^the model refused step 1's request \(400\): .*prompt is too long/);
      expect(report.runs[1].error).toBeUndefined();
      expect(report.runs[1].steps.map((s) => s.model?.agrees)).toEqual([true, true, true]);
    } finally {
      await model.close();
    }
  });

  it("a tool call made again is cut off at the run's tool timeout (--tool-timeout), as the run's call would have been", async () => {
    const id = await withAgent(env, { script, tools: [...builtinTools, notify] as AgentTool[] }, async ({ start }) => {
      const started = await start('compute', { tools: ['calculator', 'web_search', 'notify'], toolTimeoutMs: 1000 });
      expect(await getAgentResult(env.client, started)).toMatchObject({ status: 'completed', steps: 3 });
      return started;
    });
    // The calculator as it is now: it never answers.
    const hanging = defineTool<{ expression: string }>({ ...changedCalculator, execute: () => new Promise<string>(() => undefined) }) as AgentTool;
    const report = await replayRuns(env.client, { workflowIds: [id], tools: [hanging, notify] });
    expect(report.runs[0].firstDivergence).toMatchObject({ step: 1, what: 'tool calculator' });
    expect(report.runs[0].steps[0].tools[0].current).toEqual({ isError: true, content: 'the tool failed: timed out after 1000 ms' });
  });

  it('a call a reviewer denied is not made again, even with allTools: it ran in no recorded step, and is reported as skipped', async () => {
    const denying: Script = (req) =>
      stepOf(req) === 1 ? reply([toolUse('notify', { text: 'denied' }), toolUse('calculator', { expression: '6*7' })]) : reply([text('not sent')]);
    const id = await withAgent(env, { script: denying, tools: [...builtinTools, notify] as AgentTool[] }, async ({ start }) => {
      const started = await start('notify', { tools: ['calculator', 'notify'], approve: ['notify', 'calculator'] });
      await vi.waitFor(async () => expect((await getStatus(env.client, started)).view?.pendingApprovals).toHaveLength(2), { timeout: 20_000 });
      const [notifyCall, calcCall] = (await getStatus(env.client, started)).view!.pendingApprovals;
      await denyToolCall(env.client, started, notifyCall.toolUseId, 'not today');
      await denyToolCall(env.client, started, calcCall.toolUseId, 'not today');
      expect(await getAgentResult(env.client, started)).toMatchObject({ status: 'completed', steps: 2 });
      return started;
    });
    const callsBefore = sent.length;
    const report = await replayRuns(env.client, { workflowIds: [id], tools: [...builtinTools, notify], allTools: true });
    expect(sent.length).toBe(callsBefore);
    expect(report.diverged).toBe(false);
    expect(report.runs[0].steps[0].tools.map((t) => [t.name, t.status])).toEqual([
      ['notify', 'skipped'],
      ['calculator', 'skipped'],
    ]);
    expect(report.runs[0].skippedTools).toEqual(['notify: denied by a reviewer in the recorded run (not run then)', 'calculator: denied by a reviewer in the recorded run (not run then)']);
  });

  it("a call to a tool the run did not allow is made again as the run made it: refused, not run, even with allTools", async () => {
    const outside: Script = (req) => (stepOf(req) === 1 ? reply([toolUse('notify', { text: 'not allowed' })]) : reply([text('could not notify')]));
    const id = await withAgent(env, { script: outside, tools: [...builtinTools, notify] as AgentTool[] }, async ({ start }) => {
      const started = await start('notify', { tools: ['calculator'] });
      expect(await getAgentResult(env.client, started)).toMatchObject({ status: 'completed', steps: 2 });
      return started;
    });
    const callsBefore = sent.length;
    const report = await replayRuns(env.client, { workflowIds: [id], tools: [...builtinTools, notify], allTools: true });
    expect(sent.length).toBe(callsBefore);
    expect(report.diverged).toBe(false);
    expect(report.runs[0].steps[0].tools[0]).toMatchObject({ name: 'notify', status: 'agrees', current: { isError: true } });
  });

  it("with a live model, a run's sub-agents are offered as the run offered them: a model that delegates again agrees", async () => {
    const isChild = (req: MessagesRequestBody) => systemText(req.system).includes('researcher');
    // As a model does: it delegates only when the sub-agent is among the tools it is offered.
    const delegating: Script = (req) => {
      if (isChild(req)) return reply([text('the child says 42')]);
      const offered = (req.tools ?? []).some((t) => 'name' in t && t.name === 'agent__researcher');
      return stepOf(req) === 1 && offered ? reply([toolUse('agent__researcher', { task: 'what is 6*7?' })]) : reply([text('42')]);
    };
    const agents = { researcher: { description: 'Researches one question.', system: 'You are the researcher.', tools: ['calculator'], maxSteps: 3 } };
    const id = await withAgent(env, { script: delegating, agents }, async ({ start }) => {
      const started = await start('ask the researcher', { tools: ['agent__researcher'] });
      expect(await getAgentResult(env.client, started)).toMatchObject({ status: 'completed', steps: 2, text: '42' });
      return started;
    });
    const model = await startScriptedModel({ script: delegating });
    try {
      const report = await replayRuns(env.client, { workflowIds: [id], tools: builtinTools, liveModel: { apiKey: 'test', baseURL: model.url } });
      expect(report.runs[0].steps.map((s) => s.model?.agrees)).toEqual([true, true]);
      expect(report.diverged).toBe(false);
      expect(model.requests[0].body).toMatchObject({ tools: [{ name: 'agent__researcher', description: 'Researches one question.' }] });
      // The delegation itself is not made again: the report names the child run to replay instead.
      const child = (await getStatus(env.client, id)).view?.children?.[0]?.workflowId;
      expect(child).toBeTruthy();
      expect(report.runs[0].skippedTools).toEqual([`agent__researcher: a sub-agent (its own run: replay it by its id, ${child})`]);
    } finally {
      await model.close();
    }
  });
});
