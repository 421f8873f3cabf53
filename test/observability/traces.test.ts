// A France run exported to an OTLP/HTTP receiver (http/json): one trace, continued from the caller's span, with
// the run's invoke_agent span, three chat and two execute_tool spans under it, on top of Temporal's own spans.
import { Client } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { franceDemoScript, reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { useSharedAgent, useTestEnv } from '../helpers/harness.js';
import { exportTracesTo, runFromTracedCaller } from '../helpers/traced-run.js';
import { ancestorsOf, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';

const env = useTestEnv();
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  exportTracesTo(receiver.url, 'http/json', 'traces-test');
});
afterAll(async () => {
  await receiver?.close();
});
// The file's worker, made once the exporter is set (the sub-agent test's agent on it).
const shared = useSharedAgent(env, {
  agents: { researcher: { description: 'Researches one question.', system: 'You are the researcher.', tools: ['calculator'], maxSteps: 5 } },
});

describe('traces of a run', () => {
  it('a France run started from a traced caller exports one trace: invoke_agent over three chat and two execute_tool spans with GenAI attributes', async () => {
    await shared.with({ script: franceDemoScript }, async (h) => {
      const { workflowId, traceId, settings, result } = await runFromTracedCaller(env, h);
      const inTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
      const named = (prefix: string) => inTrace().filter((s) => s.name.startsWith(prefix));
      await vi.waitFor(
        () => {
          expect(named('invoke_agent ')).toHaveLength(1);
          expect(named('RunWorkflow:')).toHaveLength(1);
          expect(named('caller')).toHaveLength(1);
        },
        { timeout: 15_000, interval: 100 },
      );
      const spans = inTrace();
      const [agent] = named('invoke_agent ');
      const chats = named('chat ');
      const tools = named('execute_tool ');
      expect(chats).toHaveLength(3);
      expect(tools.map((t) => t.name).sort()).toEqual(['execute_tool calculator', 'execute_tool web_search']);
      expect(new Set(receiver.spans.filter((s) => s.name.startsWith('invoke_agent')).map((s) => s.traceId)).size).toBe(1);

      // Parent links: the caller → Temporal's StartWorkflow → RunWorkflow → invoke_agent → StartActivity → RunActivity → chat.
      const names = (s: ReceivedSpan) => ancestorsOf(s, spans).map((a) => a.name);
      expect(names(agent)).toEqual(['RunWorkflow:agentWorkflow', 'StartWorkflow:agentWorkflow', 'caller']);
      for (const chat of chats) expect(names(chat).slice(0, 3)).toEqual(['RunActivity:callModel', 'StartActivity:callModel', agent.name]);
      for (const tool of tools) expect(names(tool).slice(0, 3)).toEqual(['RunActivity:runTool', 'StartActivity:runTool', agent.name]);

      expect(agent.name).toBe('invoke_agent durable-agent');
      expect(agent.serviceName).toBe('traces-test');
      expect(agent.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.agent.name': 'durable-agent',
        'gen_ai.conversation.id': workflowId,
        'gen_ai.request.model': settings.model,
        'durable_agent.status': 'completed',
        'durable_agent.guard': 'none',
        'durable_agent.steps': 3,
        'durable_agent.tool_calls': 2,
        'gen_ai.usage.output_tokens': result.usage.output_tokens,
        'durable_agent.cost_usd': result.costUsd,
      });
      const finishes = chats.map((c) => c.attributes['gen_ai.response.finish_reasons']);
      expect(finishes).toEqual(expect.arrayContaining([['tool_use'], ['tool_use'], ['end_turn']]));
      for (const chat of chats) {
        expect(chat.name).toBe(`chat ${settings.model}`);
        expect(chat.attributes).toMatchObject({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'anthropic',
          'gen_ai.request.model': settings.model,
          'gen_ai.response.model': expect.any(String),
          'server.address': '127.0.0.1',
        });
        expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
        expect(chat.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
        expect(chat.attributes['durable_agent.cost_usd']).toBeGreaterThan(0);
        // Message content is opt-in.
        expect(chat.attributes).not.toHaveProperty('gen_ai.input.messages');
      }
      const chatCost = chats.reduce((a, c) => a + (c.attributes['durable_agent.cost_usd'] as number), 0);
      expect(chatCost).toBeCloseTo(result.costUsd!, 10);
      for (const tool of tools) {
        expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool.name.slice('execute_tool '.length) });
        expect(tool.attributes['gen_ai.tool.call.id']).toMatch(/^toolu_/);
        expect(tool.attributes).not.toHaveProperty('gen_ai.tool.call.arguments');
      }
      expect(receiver.contentTypes.every((t) => t.includes('application/json'))).toBe(true);
    });
  });

  it('a sub-agent run is a child: its invoke_agent span hangs under the parent run\'s, its chat and execute_tool spans under its own', async () => {
    const script: Script = (req, turn) => {
      const child = JSON.stringify(req.system ?? '').includes('researcher');
      if (child) return turn === 0 ? reply([toolUse('calculator', { expression: '6 * 7' })]) : reply([text('42')]);
      return turn === 0 ? reply([toolUse('agent__researcher', { task: 'what is 6 * 7?' })]) : reply([text('The answer is 42.')]);
    };
    await shared.with({ script }, async (h) => {
      const client = new Client({ connection: env.client.connection, dataConverter: env.dataConverter, interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } });
      const { workflowId: id } = await startAgent(client, { task: 'Ask the researcher', settings: defaultSettings({ tools: ['agent__researcher'] }), taskQueue: h.taskQueue });
      expect((await getAgentResult(env.client, id)).status).toBe('completed');
      const parentSpan = () => receiver.spans.find((s) => s.name === 'invoke_agent durable-agent' && s.attributes['gen_ai.conversation.id'] === id);
      await vi.waitFor(() => expect(parentSpan()).toBeDefined(), { timeout: 15_000, interval: 100 });
      const parent = parentSpan()!;
      const spans = receiver.spans.filter((s) => s.traceId === parent.traceId);
      const children = spans.filter((s) => s.name === 'invoke_agent researcher');
      expect(children).toHaveLength(1);
      const names = (s: ReceivedSpan) => ancestorsOf(s, spans).map((a) => a.name);
      expect(names(children[0]).slice(0, 3)).toEqual(['RunWorkflow:agentWorkflow', 'StartChildWorkflow:agentWorkflow', parent.name]);
      expect(children[0].attributes).toMatchObject({ 'gen_ai.agent.name': 'researcher', 'durable_agent.status': 'completed', 'durable_agent.steps': 2 });
      const underChild = (s: ReceivedSpan) => ancestorsOf(s, spans).find((a) => a.name.startsWith('invoke_agent '))?.name;
      expect(spans.filter((s) => s.name.startsWith('chat ')).map(underChild).sort()).toEqual(['invoke_agent durable-agent', 'invoke_agent durable-agent', 'invoke_agent researcher', 'invoke_agent researcher']);
      expect(spans.filter((s) => s.name === 'execute_tool calculator').map(underChild)).toEqual(['invoke_agent researcher']);
    });
  });
});
