// Tools defined with `fast: true` run their calls as local activities (patch `fast-tools-local`): in the worker
// that runs the workflow task, with no dispatch through the server and no workflow task of their own. Real dev
// server, real worker, the scripted model through the real SDK.
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { defineTool, type AgentTool } from '../../src/tools/types.js';
import { definitionOf, lastToolResults, localActivityTypes, useSharedAgent, useTestEnv, withAgent, type AgentHarness } from '../helpers/harness.js';

const env = useTestEnv();
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const add = (fast: boolean, execute?: AgentTool<{ a: number; b: number }>['execute']) =>
  defineTool<{ a: number; b: number }>({
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    ...(fast ? { fast: true } : {}),
    retry: { initialInterval: '100ms' },
    execute: execute ?? (async ({ a, b }) => String(a + b)),
  });

// The fast tool's worker, for the file; the plain tool (another definition of `add`) has a worker of its own.
const agents = useSharedAgent(env, { tools: [definitionOf(add(true) as AgentTool)] });

const script: Script = (_req, turn) => (turn < 3 ? reply([toolUse('add', { a: turn, b: 1 })]) : reply([text('done')]));

async function events(workflowId: string): Promise<HistoryEvent[]> {
  return (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}
const activityTypes = (es: HistoryEvent[]) => es.flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
const workflowTasks = (es: HistoryEvent[]) => es.filter((e) => e.workflowTaskCompletedEventAttributes).length;
/** The tool calls run as local activities (the run's tools are described in one too). */
const localCalls = (es: HistoryEvent[]) => localActivityTypes(es).filter((t) => t === 'runTool').length;

describe('fast tools', () => {
  it('run as local activities: no runTool activity, one workflow task fewer per call, the same results', async () => {
    const body = async ({ start, model }: AgentHarness) => {
      const id = await start('add', { tools: ['add'] });
      const result = await getAgentResult(env.client, id);
      return { result, history: await events(id), toolResults: lastToolResults(model.requests) };
    };
    const run = (fast: boolean) =>
      fast ? agents.with({ script, tools: [add(true) as AgentTool] }, body) : withAgent(env, { script, tools: [add(false) as AgentTool] }, body);
    const fast = await run(true);
    const plain = await run(false);
    expect(fast.result).toMatchObject({ status: 'completed', text: 'done', toolCalls: 3 });
    expect(fast.toolResults.map((r) => r.content)).toEqual(plain.toolResults.map((r) => r.content));
    expect(activityTypes(fast.history).filter((t) => t === 'runTool')).toHaveLength(0);
    expect(activityTypes(plain.history).filter((t) => t === 'runTool')).toHaveLength(3);
    expect(localCalls(fast.history)).toBe(3);
    expect(workflowTasks(fast.history)).toBe(workflowTasks(plain.history) - 3);
  });

  it('a call that fails for infrastructure reasons is retried by its retry policy, within the worker', async () => {
    let attempts = 0;
    const flaky = add(true, async ({ a, b }) => {
      attempts++;
      if (attempts < 3) throw new Error('connection reset');
      return String(a + b);
    });
    const once: Script = (_req, turn) => (turn === 0 ? reply([toolUse('add', { a: 2, b: 2 })]) : reply([text('4')]));
    await agents.with({ script: once, tools: [flaky as AgentTool] }, async ({ start, model }) => {
      const id = await start('add', { tools: ['add'] });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: '4', toolCalls: 1 });
      expect(attempts).toBe(3);
      expect(JSON.stringify(lastToolResults(model.requests))).toContain('"4"');
      expect(localCalls(await events(id))).toBe(1);
    });
  });

  it('a call that fails on every attempt gives the model an is_error result naming the failure, and the run goes on, as a call of a tool that is not fast', async () => {
    let attempts = 0;
    const broken = add(true, async () => {
      attempts++;
      throw new Error('disk full');
    });
    const once: Script = (_req, turn) => (turn === 0 ? reply([toolUse('add', { a: 2, b: 2 })]) : reply([text('the disk is full')]));
    await agents.with({ script: once, tools: [broken as AgentTool] }, async ({ start, model }) => {
      const id = await start('add', { tools: ['add'] });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'the disk is full', toolCalls: 1 });
      expect(attempts).toBe(3);
      expect(lastToolResults(model.requests)).toEqual([expect.objectContaining({ is_error: true, content: 'Tool "add" failed: disk full' })]);
    });
  });

  it('completeLater() from a fast tool gives the model an is_error result saying so, and the run goes on', async () => {
    const later = add(true, async (_input, context) => context.completeLater());
    const once: Script = (_req, turn) => (turn === 0 ? reply([toolUse('add', { a: 2, b: 2 })]) : reply([text('ok')]));
    await agents.with({ script: once, tools: [later as AgentTool] }, async ({ start, model }) => {
      const id = await start('add', { tools: ['add'] });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'ok' });
      const [result] = lastToolResults(model.requests);
      expect(result).toMatchObject({ is_error: true });
      expect(result.content).toMatch(/^Tool "add" failed: Tool "add" called context\.completeLater\(\), but its definition does not set completesLater: true/);
    });
  });
});
