// forkRun: a new run whose steps 1 … N−1 are a recorded run's (no model call, no tool call made again for them) and
// whose step N is its first live model call. Real dev server, real worker, the scripted model through the real SDK;
// what is proved is read from what the system recorded: the model's requests, the tool's execution counter, the
// histories.
import { describe, expect, it } from 'vitest';
import { forkRun, getAgentResult, getStatus, ForkError, resumeAgent } from '../../src/client/index.js';
import { reply, text, toolUse, type MessagesRequestBody, type Script, type ScriptFunction } from '../../src/scripted/index.js';
import { AgentForkedFrom } from '../../src/core/search-attributes.js';
import { agentInput } from '../../src/core/settings.js';
import { AGENT_WORKFLOW } from '../../src/workflows/definitions.js';
import { defineTool, type AgentTool } from '../../src/tools/types.js';
import { builtinTools } from '../../src/tools/registry.js';
import { useSharedAgent, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();

/** A side-effecting tool: each execution is counted. */
function recorder() {
  const executions: number[] = [];
  const tool = defineTool<{ n: number }>({
    name: 'record',
    description: 'Records a number somewhere (a side effect).',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    execute: async ({ n }) => {
      executions.push(n);
      return `recorded ${n}`;
    },
  });
  return { tool: tool as AgentTool, executions };
}

const RESEARCHER = { researcher: { description: 'Researches one question.', system: 'You are the researcher.', tools: ['calculator'], maxSteps: 5 } };
// One worker for the file's tests: the recorder tool (each test brings its own, which counts its executions) and the
// researcher sub-agent.
const shared = useSharedAgent(env, { tools: [...builtinTools, recorder().tool], agents: RESEARCHER });

const stepOf = (req: MessagesRequestBody) => req.messages.filter((m) => m.role === 'assistant').length + 1;
/** Steps 1 and 2 call the tool, step 3 answers: the same reply for the same conversation, source or fork. */
const threeSteps: ScriptFunction = (req) => {
  const step = stepOf(req);
  if (step <= 2) return reply([text(`recording ${step}`), toolUse('record', { n: step })]);
  const steer = JSON.stringify(req.messages.at(-1)?.content ?? '').includes('STEER') ? ' (steered)' : '';
  return reply([text(`done${steer}`)]);
};

const toolUseIds = (messages: MessageParam[]) =>
  messages.flatMap((m) => (Array.isArray(m.content) ? m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : []));
type MessageParam = MessagesRequestBody['messages'][number];

async function historyOf(workflowId: string) {
  return (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

describe('forkRun', () => {
  it('a 3-step run forked at step 3 makes one model request, carrying the recorded steps; no reused tool runs again', async () => {
    const { tool, executions } = recorder();
    await shared.with({ script: threeSteps, tools: [tool] }, async ({ start, model, taskQueue }) => {
      const sourceId = await start('record two numbers', { tools: ['record'] });
      const source = await getAgentResult(env.client, sourceId);
      expect(source).toMatchObject({ status: 'completed', steps: 3, text: 'done', toolCalls: 2 });
      expect(executions).toEqual([1, 2]);
      const sourceRequests = model.requests.length;
      const recordedIds = toolUseIds((model.requests[sourceRequests - 1].body as MessagesRequestBody).messages);
      expect(recordedIds).toHaveLength(2);
      const sourceEvents = await historyOf(sourceId);

      const fork = await forkRun(env.client, sourceId, { fromStep: 3, taskQueue });
      const result = await getAgentResult(env.client, fork.workflowId);

      expect(result).toMatchObject({ status: 'completed', text: 'done', steps: 3, toolCalls: 0 });
      expect(result.forkedFrom).toMatchObject({ workflowId: sourceId, step: 3, reusedToolCalls: 2 });
      expect(result.forkedFrom!.reusedUsage.input_tokens).toBeGreaterThan(0);
      // Exactly one model request for the one live step; none for steps 1 and 2.
      expect(model.requests.length - sourceRequests).toBe(1);
      const first = model.requests[sourceRequests].body as MessagesRequestBody;
      expect(toolUseIds(first.messages)).toEqual(recordedIds);
      expect(first.messages).toHaveLength(5); // the task, then steps 1 and 2: reply and results each
      // The side-effecting tool of steps 1-2 was not executed again.
      expect(executions).toEqual([1, 2]);
      // The fork's usage is its live step's only; the reused steps' are apart.
      expect(result.usage.input_tokens).toBeLessThan(source.usage.input_tokens);

      const status = await getStatus(env.client, fork.workflowId);
      expect(status.view?.forkedFrom).toMatchObject({ workflowId: sourceId, step: 3 });
      const description = await env.client.workflow.getHandle(fork.workflowId).describe();
      expect(description.typedSearchAttributes.get(AgentForkedFrom)).toBe(sourceId);

      // The source is untouched: the same history, event for event.
      const after = await historyOf(sourceId);
      expect(after.length).toBe(sourceEvents.length);
      expect(after.at(-1)?.eventId?.toString()).toBe(sourceEvents.at(-1)?.eventId?.toString());
    });
  });

  it('a steering message goes after the reused steps, and a fork of a fork reuses its source and its own steps', async () => {
    const { tool, executions } = recorder();
    await shared.with({ script: threeSteps, tools: [tool] }, async ({ start, model, taskQueue }) => {
      const sourceId = await start('record two numbers', { tools: ['record'] });
      await getAgentResult(env.client, sourceId);
      const fork = await forkRun(env.client, sourceId, { fromStep: 2, message: 'STEER: be brief', taskQueue });
      const forkResult = await getAgentResult(env.client, fork.workflowId);
      expect(forkResult).toMatchObject({ status: 'completed', steps: 3, text: 'done', toolCalls: 1 });
      // Step 2 was live in the fork: its tool ran once more (for the fork), step 1's did not.
      expect(executions).toEqual([1, 2, 2]);
      const before = model.requests.length;
      const grandchild = await forkRun(env.client, fork.workflowId, { fromStep: 3, message: 'STEER again', taskQueue });
      const last = await getAgentResult(env.client, grandchild.workflowId);
      expect(last).toMatchObject({ status: 'completed', text: 'done (steered)' });
      expect(model.requests.length - before).toBe(1);
      expect(executions).toEqual([1, 2, 2]);
      // Reused: step 1 (the source's, through the first fork) and step 2 (the first fork's own).
      expect(last.forkedFrom).toMatchObject({ workflowId: fork.workflowId, step: 3, reusedToolCalls: 2 });
      const sent = JSON.stringify((model.requests.at(-1)!.body as MessagesRequestBody).messages);
      expect(sent).toContain('STEER: be brief');
      expect(sent).toContain('STEER again');
    });
  });

  it('a step beyond the recorded ones is refused, saying how many steps the run has', async () => {
    const { tool } = recorder();
    await shared.with({ script: threeSteps, tools: [tool] }, async ({ start, taskQueue }) => {
      const sourceId = await start('record two numbers', { tools: ['record'] });
      await getAgentResult(env.client, sourceId);
      const refused = forkRun(env.client, sourceId, { fromStep: 99, taskQueue });
      await expect(refused).rejects.toThrow(ForkError);
      await expect(refused).rejects.toThrow(`run ${sourceId} has 3 recorded steps: --from-step must be 1 to 3 (got 99)`);
      await expect(forkRun(env.client, 'no-such-run-anywhere', { fromStep: 1 })).rejects.toThrow(/no run no-such-run-anywhere .*history is gone/);
    });
  });

  it("a source whose history answers are over gRPC's 4 MB is read in smaller pages: the fork is refused for having no step yet, not failed with RESOURCE_EXHAUSTED", async () => {
    // No worker serves this queue: the run has recorded no step, and ten 460 KB signals make its history one answer of
    // 4.6 MB, over the limit of this test's client (the CLI's is 128 MB).
    const sourceId = `large-history-${Math.random().toString(36).slice(2, 8)}`;
    const handle = await env.client.workflow.start(AGENT_WORKFLOW, { taskQueue: `none-${sourceId}`, workflowId: sourceId, args: [agentInput('a task')] });
    try {
      for (let i = 0; i < 10; i++) await handle.signal('big', `${i}`.padEnd(460_000, 'x'));
      await expect(forkRun(env.client, sourceId, { fromStep: 1 })).rejects.toThrow(`run ${sourceId} has 0 recorded steps: it cannot be forked yet (got 1)`);
    } finally {
      await handle.terminate('test over');
    }
  });

  it('a run that continued as new is forked across its runs: the reused usage counts the steps of every run', async () => {
    const { tool } = recorder();
    await shared.with({ script: threeSteps, tools: [tool] }, async ({ start, model, taskQueue }) => {
      const sourceId = await start('record two numbers', { tools: ['record'], continueAsNewAfterSteps: 1 });
      const source = await getAgentResult(env.client, sourceId);
      expect(source).toMatchObject({ status: 'completed', steps: 3 });
      expect(source.runsUsed).toBeGreaterThan(1);
      const before = model.requests.length;
      const fork = await forkRun(env.client, sourceId, { fromStep: 3, taskQueue });
      const result = await getAgentResult(env.client, fork.workflowId);
      expect(result).toMatchObject({ status: 'completed', text: 'done', steps: 3 });
      expect(model.requests.length - before).toBe(1);
      // The fork's live step 3 sends what the source's step 3 sent: reused + live is the source's whole usage.
      expect(result.forkedFrom!.reusedUsage.input_tokens).toBeGreaterThan(0);
      expect(result.forkedFrom!.reusedUsage.input_tokens + result.usage.input_tokens).toBe(source.usage.input_tokens);
      expect(result.forkedFrom!.reusedUsage.output_tokens + result.usage.output_tokens).toBe(source.usage.output_tokens);
    });
  });

  it('a fork stopped by its step cap and resumed still says where it came from: its result and status keep forkedFrom', async () => {
    const { tool } = recorder();
    await shared.with({ script: threeSteps, tools: [tool] }, async ({ start, taskQueue }) => {
      const sourceId = await start('record two numbers', { tools: ['record'] });
      await getAgentResult(env.client, sourceId);
      // One live step (step 2), then the step cap stops the fork before step 3.
      const fork = await forkRun(env.client, sourceId, { fromStep: 2, settings: { maxSteps: 1, summaryOn: [] }, taskQueue });
      const stopped = await getAgentResult(env.client, fork.workflowId);
      expect(stopped).toMatchObject({ status: 'stopped', guard: 'max_steps', steps: 2 });
      expect(stopped.forkedFrom).toMatchObject({ workflowId: sourceId, step: 2, reusedToolCalls: 1 });

      await resumeAgent(env.client, fork.workflowId, { moreSteps: 5, taskQueue });
      const resumed = await getAgentResult(env.client, fork.workflowId);
      expect(resumed).toMatchObject({ status: 'completed', text: 'done', steps: 3 });
      expect(resumed.forkedFrom).toEqual(stopped.forkedFrom);
      expect((await getStatus(env.client, fork.workflowId)).view?.forkedFrom).toEqual(stopped.forkedFrom);
      // And a filter on AgentForkedFrom still finds it (only a start sets that attribute).
      const { typedSearchAttributes } = await env.client.workflow.getHandle(fork.workflowId).describe();
      expect(typedSearchAttributes.get(AgentForkedFrom)).toBe(sourceId);
    });
  });

  it('a running run is forked at the steps it has recorded so far; the source goes on unchanged', async () => {
    const { tool, executions } = recorder();
    // The source's step 2 (the second request of all) is held: the source is running, its step 1 recorded.
    let requests = 0;
    const held: ScriptFunction = (req, turn) => ({ ...(threeSteps(req, turn) as object), ...(++requests === 2 ? { hold: true } : {}) }) as ReturnType<ScriptFunction>;
    await shared.with({ script: held, tools: [tool] }, async ({ start, model, taskQueue }) => {
      const sourceId = await start('record two numbers', { tools: ['record'] });
      await model.waitForHeld(1, 20_000);
      // Step 2 is being asked for: the recorded steps are 1, and the fork may start at 2 (or 1), not 3.
      await expect(forkRun(env.client, sourceId, { fromStep: 3, taskQueue })).rejects.toThrow('has 1 recorded step: --from-step must be 1 to 2 (got 3)');
      const fork = await forkRun(env.client, sourceId, { fromStep: 2, taskQueue });
      const result = await getAgentResult(env.client, fork.workflowId);
      expect(result).toMatchObject({ status: 'completed', text: 'done', steps: 3, toolCalls: 1 });
      expect(result.forkedFrom).toMatchObject({ step: 2, reusedToolCalls: 1 });
      // The fork's own step 2 recorded 2; step 1's call was not made again.
      expect(executions).toEqual([1, 2]);
      model.release();
      expect(await getAgentResult(env.client, sourceId)).toMatchObject({ status: 'completed', steps: 3, toolCalls: 2 });
      expect(executions).toEqual([1, 2, 2]);
    });
  });

  it("a run with sub-agents is forked after a delegation: the child's answer is reused as the tool result, no child runs again", async () => {
    const isChild = (req: MessagesRequestBody) => JSON.stringify(req.system ?? '').includes('researcher');
    const delegating: Script = (req) => {
      if (isChild(req)) return reply([text('the child says 42')]);
      return stepOf(req) === 1 ? reply([toolUse('agent__researcher', { task: 'what is 6*7?' })]) : reply([text('the parent says 42')]);
    };
    await shared.with({ script: delegating }, async ({ start, model, taskQueue }) => {
      const sourceId = await start('ask the researcher', { tools: ['agent__researcher'] });
      expect(await getAgentResult(env.client, sourceId)).toMatchObject({ status: 'completed', text: 'the parent says 42' });
      const childRequests = () => model.requests.filter((r) => isChild(r.body as MessagesRequestBody)).length;
      expect(childRequests()).toBe(1);
      const before = model.requests.length;
      const fork = await forkRun(env.client, sourceId, { fromStep: 2, taskQueue });
      expect(await getAgentResult(env.client, fork.workflowId)).toMatchObject({ status: 'completed', text: 'the parent says 42', steps: 2 });
      expect(model.requests.length - before).toBe(1);
      expect(childRequests()).toBe(1);
      expect(JSON.stringify((model.requests.at(-1)!.body as MessagesRequestBody).messages)).toContain('the child says 42');
    });
  });

  it("the reused usage and cost of a fork after a delegation count the sub-agent's, as the source's usage does", async () => {
    const isChild = (req: MessagesRequestBody) => JSON.stringify(req.system ?? '').includes('researcher');
    const delegating: Script = (req) => {
      if (isChild(req)) return reply([text('the child says 42')]);
      return stepOf(req) === 1 ? reply([toolUse('agent__researcher', { task: 'what is 6*7?' })]) : reply([text('the parent says 42')]);
    };
    await shared.with({ script: delegating }, async ({ start, taskQueue }) => {
      const sourceId = await start('ask the researcher', { tools: ['agent__researcher'] });
      const source = await getAgentResult(env.client, sourceId);
      expect(source).toMatchObject({ status: 'completed', steps: 2 });
      const fork = await forkRun(env.client, sourceId, { fromStep: 2, taskQueue });
      const result = await getAgentResult(env.client, fork.workflowId);
      expect(result).toMatchObject({ status: 'completed', text: 'the parent says 42', steps: 2 });
      // The fork's live step 2 sends what the source's step 2 sent: reused + live is the source's whole usage, the
      // child's (rolled up into the source's) included.
      const reused = result.forkedFrom!;
      expect(reused.reusedUsage.input_tokens + result.usage.input_tokens).toBe(source.usage.input_tokens);
      expect(reused.reusedUsage.output_tokens + result.usage.output_tokens).toBe(source.usage.output_tokens);
      expect(reused.reusedCostUsd! + result.costUsd!).toBeCloseTo(source.costUsd!, 6);
    });
  });
});
