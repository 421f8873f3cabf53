// The France run's trace in a real Jaeger (v2, built from the Go module proxy the first time and cached per machine;
// `npm run jaeger -- --build`, which CI runs first, only warms that cache), exported over OTLP/HTTP (http/protobuf, the default) and read back through Jaeger's query API,
// the one its UI reads: what a team sees in its backend, not what our exporter thinks it sent.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ensureJaeger, startJaeger, type Jaeger } from '../../devtools/jaeger.js';
import { franceDemoScript } from '../../src/scripted/index.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';
import { jaegerTrace, jaegerTraceIds } from '../helpers/jaeger.js';
import { exportTracesTo, runFromTracedCaller } from '../helpers/traced-run.js';
import { ancestorsOf, type ReceivedSpan } from '../helpers/otlp-receiver.js';

const env = useTestEnv();
const SERVICE = 'jaeger-test';
let jaeger: Jaeger;

beforeAll(async () => {
  // The cached build, or from a cold cache this hook builds it (minutes, once per machine, under a lock so parallel
  // runs wait for one build), saying so on stderr, as the Temporal CLI and the full stack's binaries are obtained.
  const log = (m: string) => console.error(`[jaeger] ${m}`);
  const binary = await ensureJaeger(log);
  jaeger = await startJaeger({ log, binary });
  exportTracesTo(jaeger.otlpEndpoint, 'http/protobuf', SERVICE);
}, 20 * 60_000);
afterAll(async () => {
  await jaeger?.stop();
});

describe('a run in Jaeger', () => {
  it('a France run exported to Jaeger reads back from its query API as one trace: invoke_agent over three chat and two execute_tool spans with GenAI attributes and the configured service', async () => {
    await withAgent(env, { script: franceDemoScript }, async (h) => {
      const { workflowId, traceId, settings, result } = await runFromTracedCaller(env, h);

      // Jaeger stores what its batch processor hands on: wait until the whole trace is there.
      let spans: ReceivedSpan[] = [];
      const named = (prefix: string) => spans.filter((s) => s.name.startsWith(prefix));
      await vi.waitFor(
        async () => {
          spans = await jaegerTrace(jaeger.queryUrl, traceId);
          expect(named('invoke_agent ')).toHaveLength(1);
          expect(named('chat ')).toHaveLength(3);
          expect(named('execute_tool ')).toHaveLength(2);
          expect(named('RunWorkflow:')).toHaveLength(1);
          expect(named('caller')).toHaveLength(1);
        },
        { timeout: 20_000, interval: 200 },
      );
      // One trace: every trace Jaeger holds for the service is this run's.
      expect(await jaegerTraceIds(jaeger.queryUrl, SERVICE)).toEqual([traceId]);
      expect(new Set(spans.map((s) => s.serviceName))).toEqual(new Set([SERVICE]));

      const [agent] = named('invoke_agent ');
      const chats = named('chat ');
      const tools = named('execute_tool ');
      expect(tools.map((t) => t.name).sort()).toEqual(['execute_tool calculator', 'execute_tool web_search']);

      // Parent references as Jaeger stored them: caller → StartWorkflow → RunWorkflow → invoke_agent → StartActivity → RunActivity → chat / execute_tool.
      const names = (s: ReceivedSpan) => ancestorsOf(s, spans).map((a) => a.name);
      expect(names(agent)).toEqual(['RunWorkflow:agentWorkflow', 'StartWorkflow:agentWorkflow', 'caller']);
      for (const chat of chats) expect(names(chat).slice(0, 3)).toEqual(['RunActivity:callModel', 'StartActivity:callModel', agent.name]);
      for (const tool of tools) expect(names(tool).slice(0, 3)).toEqual(['RunActivity:runTool', 'StartActivity:runTool', agent.name]);

      expect(agent.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.agent.name': 'durable-agent',
        'gen_ai.conversation.id': workflowId,
        'gen_ai.request.model': settings.model,
        'durable_agent.status': 'completed',
        'durable_agent.steps': 3,
        'durable_agent.tool_calls': 2,
        'gen_ai.usage.output_tokens': result.usage.output_tokens,
      });
      expect(agent.attributes['durable_agent.cost_usd']).toBeCloseTo(result.costUsd!, 10);
      for (const chat of chats) {
        expect(chat.name).toBe(`chat ${settings.model}`);
        expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'anthropic', 'gen_ai.request.model': settings.model });
        expect(chat.attributes['gen_ai.response.model']).toEqual(expect.any(String));
        expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
        expect(chat.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
      }
      const finishes = chats.map((c) => String(c.attributes['gen_ai.response.finish_reasons']));
      expect(finishes.sort()).toEqual(['["end_turn"]', '["tool_use"]', '["tool_use"]']);
      for (const tool of tools) {
        expect(tool.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': tool.name.slice('execute_tool '.length) });
        expect(tool.attributes['gen_ai.tool.call.id']).toMatch(/^toolu_/);
      }
    });
  });
});
