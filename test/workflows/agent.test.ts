// The agent loop against the real dev server, a real worker and the scripted model (real Anthropic SDK).
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/core/types.js';
import { franceDemoScript, reply, text, toolUse } from '../../src/scripted/index.js';
import type { RecordedRequest } from '../../src/scripted/index.js';
import { defineTool } from '../../src/tools/types.js';
import { builtinTools } from '../../src/tools/registry.js';
import { scheduledActivities, useSharedAgent, useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();

/** The concurrency test's tool, as the file's worker defines it (the test's own counts its calls). */
const slowDefinition = {
  name: 'slow',
  description: 'waits a little',
  inputSchema: { type: 'object' as const, properties: { n: { type: 'number' } }, required: ['n'] },
};
// One worker for the file's tests, but the one without an API key.
const agents = useSharedAgent(env, { tools: [...builtinTools, defineTool<{ n: number }>({ ...slowDefinition, execute: async ({ n }) => `done ${n}` })] });

const FRANCE = 'Search for the population of France and calculate what 15% of that number is';

function messagesOf(request: RecordedRequest): MessageParam[] {
  return (request.body as { messages: MessageParam[] }).messages;
}
const answered = (requests: RecordedRequest[]) => requests.filter((r) => r.status === 200);

describe('agentWorkflow', () => {
  it('runs the France example through two tool turns and ends on end_turn with the computed answer', async () => {
    await agents.with({ script: franceDemoScript }, async ({ run, model, env }) => {
      const result = await run(FRANCE);
      expect(result.status).toBe('completed');
      expect(result.stopReason).toBe('end_turn');
      expect(result.steps).toBe(3);
      expect(result.toolCalls).toBe(2);
      expect(result.guard).toBeNull();
      expect(result.error).toBeNull();
      // 15% of the stub's 68,606,000, computed by the calculator tool, not by the script.
      expect(result.text).toContain('10,290,900');
      expect(result.usage.input_tokens).toBeGreaterThan(0);
      expect(result.usage.output_tokens).toBeGreaterThan(0);
      expect(answered(model.requests)).toHaveLength(3);
      // The tools were described in a local activity (a marker, not an activity): no MCP tool is named.
      expect(await scheduledActivities(env.client, result.workflowId)).toEqual([
        'callModel',
        'runTool',
        'callModel',
        'runTool',
        'callModel',
      ]);
    });
  });

  it('sends the results of two tool_use blocks of one turn back in ONE user message, in tool_use order', async () => {
    const script = [
      reply([
        text('Two lookups at once.'),
        toolUse('calculator', { expression: '2 + 3' }, 'toolu_a'),
        toolUse('calculator', { expression: '10 * 10' }, 'toolu_b'),
      ]),
      reply([text('5 and 100.')]),
    ];
    await agents.with({ script }, async ({ run, model }) => {
      const result = await run('add and multiply');
      expect(result.status).toBe('completed');
      expect(result.toolCalls).toBe(2);
      const second = messagesOf(answered(model.requests)[1]);
      expect(second).toHaveLength(3);
      expect(second[1].role).toBe('assistant');
      // toMatchObject: the request also marks the last block with cache_control (prompt caching).
      expect(second[2]).toMatchObject({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: '5' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: '100' },
        ],
      });
    });
  });

  it('sends the whole assistant content back, text and tool_use blocks alike', async () => {
    const script = [reply([text('Let me compute.'), toolUse('calculator', { expression: '6 * 7' })]), reply([text('42')])];
    await agents.with({ script }, async ({ run, model }) => {
      await run('six times seven');
      // The scripted model rejects a request whose assistant turn differs from what it returned, so getting a
      // second answer already proves it; the assertion shows what was sent.
      const [, second] = answered(model.requests);
      expect(messagesOf(second)[1]).toMatchObject({
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me compute.' },
          { type: 'tool_use', id: 'toolu_0_1', name: 'calculator', input: { expression: '6 * 7' } },
        ],
      });
    });
  });

  it('answers an unknown tool and invalid tool input with is_error results, and the loop goes on', async () => {
    const script = [
      reply([toolUse('no_such_tool', { x: 1 }, 'toolu_1'), toolUse('calculator', { expr: '1+1' }, 'toolu_2')]),
      reply([text('Sorry, I will try again.')]),
    ];
    await agents.with({ script }, async ({ run, model }) => {
      const result = await run('break things');
      expect(result.status).toBe('completed');
      expect(result.toolCalls).toBe(2);
      const results = messagesOf(answered(model.requests)[1])[2].content as Array<{
        is_error?: boolean;
        content: string;
      }>;
      expect(results[0].is_error).toBe(true);
      expect(results[0].content).toMatch(/Unknown tool "no_such_tool"/);
      expect(results[1].is_error).toBe(true);
      expect(results[1].content).toMatch(/expression/);
    });
  });

  it('returns a calculator error as an is_error result the model can read', async () => {
    const script = [reply([toolUse('calculator', { expression: '2 * (3 + )' }, 'toolu_1')]), reply([text('oops')])];
    await agents.with({ script }, async ({ run, model }) => {
      await run('bad maths');
      const [result] = messagesOf(answered(model.requests)[1])[2].content as Array<{ is_error?: boolean; content: string }>;
      expect(result.is_error).toBe(true);
      expect(result.content).toMatch(/Unexpected/);
    });
  });

  it('runs the tool calls of one turn concurrently', async () => {
    let running = 0;
    let peak = 0;
    const slow = defineTool<{ n: number }>({
      ...slowDefinition,
      async execute({ n }) {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 400));
        running--;
        return `done ${n}`;
      },
    });
    const script = [
      reply([toolUse('slow', { n: 1 }), toolUse('slow', { n: 2 }), toolUse('slow', { n: 3 })]),
      reply([text('all done')]),
    ];
    await agents.with({ script, tools: [slow] }, async ({ run }) => {
      const result = await run('three slow things', { tools: ['slow'] });
      expect(result.status).toBe('completed');
      expect(peak).toBe(3);
    });
  });
});

describe('agentWorkflow failures', () => {
  it('fails a run at once, without retrying, when the worker has no API key, naming the variable', async () => {
    await withAgent(env, { script: [reply([text('never sent')])], apiKey: null }, async ({ run, model }) => {
      const result = await run('anything');
      expect(result.status).toBe('failed');
      expect(result.error).toMatch(/ANTHROPIC_API_KEY is not set/);
      expect(result.steps).toBe(0);
      expect(model.requests).toHaveLength(0);
    });
  });
});

describe('agentWorkflow stop reasons', () => {
  it.each(['end_turn', 'stop_sequence'] as const)('%s completes the run with the reply text', async (stop) => {
    await agents.with({ script: [reply([text('final words')], stop)] }, async ({ run }) => {
      const result = await run('say something');
      expect(result).toMatchObject({ status: 'completed', stopReason: stop, text: 'final words', steps: 1 });
    });
  });

  it.each(['refusal', 'max_tokens'] as const)('%s stops the run and runs no tool from that turn', async (stop) => {
    const script = [reply([text('I will call a tool'), toolUse('calculator', { expression: '1 + 1' })], stop)];
    await agents.with({ script }, async ({ run, env }) => {
      const result = await run('try a tool');
      expect(result.status).toBe('stopped');
      expect(result.stopReason).toBe(stop);
      expect(result.toolCalls).toBe(0);
      expect(result.error).toMatch(stop === 'refusal' ? /refusal/ : /max_tokens/);
      expect(result.text).toBe('I will call a tool');
      expect(await scheduledActivities(env.client, result.workflowId)).toEqual(['callModel']);
    });
  });

  it('model_context_window_exceeded stops the run with a clear status', async () => {
    await agents.with({ script: [reply([text('partial')], 'model_context_window_exceeded')] }, async ({ run }) => {
      const result = await run('too long');
      expect(result.status).toBe('stopped');
      expect(result.stopReason).toBe('model_context_window_exceeded');
      expect(result.error).toMatch(/context window/);
    });
  });

  it('pause_turn sends the conversation back as it is, the paused assistant turn last', async () => {
    const script = [reply([text('searching the web…')], 'pause_turn'), reply([text('found it')])];
    await agents.with({ script }, async ({ run, model }) => {
      const result = await run('look something up');
      expect(result).toMatchObject({ status: 'completed', steps: 2, text: 'found it' });
      const second = messagesOf(answered(model.requests)[1]);
      expect(second).toHaveLength(2);
      expect(second[1]).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'searching the web…' }] });
    });
  });

  it('an unknown stop_reason fails the run with an error naming the value', async () => {
    const script = [{ content: [text('hm')], stop_reason: 'brand_new_reason' as never }];
    await agents.with({ script }, async ({ run }) => {
      const result = await run('surprise me');
      expect(result.status).toBe('failed');
      expect(result.error).toContain('brand_new_reason');
    });
  });
});
