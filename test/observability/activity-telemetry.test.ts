// The spans and metrics of one model or tool call attempt, against an in-memory exporter: GenAI attributes,
// message content only when opted in and never with encryption on, errors marked.
import { context, trace } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { describe, expect, it } from 'vitest';
import type { ModelReply, ToolOutcome } from '../../src/core/types.js';
import { observeModelCall, observeToolCall, type ActivityTelemetry } from '../../src/observability/activity-telemetry.js';
import { AgentMetrics } from '../../src/observability/metrics.js';
import { workerTelemetry } from '../../src/observability/worker-telemetry.js';
import type { AgentTracing } from '../../src/observability/tracing.js';
import { parsePrometheus, sumOf } from '../helpers/prometheus.js';

function setup(captureContent = false) {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register(); // the AsyncLocalStorage context a worker has: the active span is the parent
  const metrics = new AgentMetrics();
  const telemetry: ActivityTelemetry = { tracer: provider.getTracer('test'), captureContent, metrics };
  return { exporter, metrics, telemetry };
}

const reply: ModelReply = {
  id: 'msg_1',
  model: 'claude-sonnet-4-5-20250929',
  content: [{ type: 'text', text: 'Paris.', citations: null }],
  stopReason: 'end_turn',
  usage: { input_tokens: 1000, output_tokens: 200, cache_creation_input_tokens: 0, cache_read_input_tokens: 500 },
};
const request = { model: 'claude-sonnet-4-5', maxOutputTokens: 1024, system: 'Be brief.' };
const messages = [{ role: 'user', content: 'The capital of France?' }];

describe('observeModelCall', () => {
  it("prices a Message Batch request's reply (batch mode) at half, in its span and its metrics", async () => {
    const { exporter, metrics, telemetry } = setup();
    const observed = observeModelCall(telemetry, 'http://127.0.0.1:9999');
    observed.request(request, messages);
    observed.replied({ ...reply, batch: { id: 'msgbatch_1', customId: 'job-s1-1-abc' } });
    const [span] = exporter.getFinishedSpans();
    expect(span.attributes['durable_agent.cost_usd']).toBeCloseTo((1000 * 3 + 200 * 15 + 500 * 0.3) / 2e6, 12);
    const samples = parsePrometheus(await metrics.text());
    expect(sumOf(samples, 'durable_agent_cost_usd_total', {})).toBeCloseTo((1000 * 3 + 200 * 15 + 500 * 0.3) / 2e6, 12);
  });

  it('makes one "chat <model>" span with the GenAI attributes and cost, and counts the call, its tokens and cost', async () => {
    const { exporter, metrics, telemetry } = setup();
    const observed = observeModelCall(telemetry, 'http://127.0.0.1:9999');
    observed.request(request, messages);
    observed.replied(reply);
    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe('chat claude-sonnet-4-5');
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.request.max_tokens': 1024,
      'gen_ai.response.model': 'claude-sonnet-4-5-20250929',
      'gen_ai.response.id': 'msg_1',
      'gen_ai.response.finish_reasons': ['end_turn'],
      'gen_ai.usage.input_tokens': 1500, // cache reads included, as the conventions count them
      'gen_ai.usage.output_tokens': 200,
      'gen_ai.usage.cache_read.input_tokens': 500,
      'server.address': '127.0.0.1',
    });
    // claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read per million.
    expect(span.attributes['durable_agent.cost_usd']).toBeCloseTo((1000 * 3 + 200 * 15 + 500 * 0.3) / 1e6, 12);
    expect(span.attributes).not.toHaveProperty('gen_ai.input.messages');
    const samples = parsePrometheus(await metrics.text());
    expect(sumOf(samples, 'durable_agent_model_calls_total', { model: 'claude-sonnet-4-5', outcome: 'ok' })).toBe(1);
    expect(sumOf(samples, 'durable_agent_tokens_total', { kind: 'cache_read' })).toBe(500);
    expect(sumOf(samples, 'durable_agent_cost_usd_total')).toBeCloseTo(span.attributes['durable_agent.cost_usd'] as number, 12);
  });

  it('puts the messages and the reply on the span when content capture is on', () => {
    const { exporter, telemetry } = setup(true);
    const observed = observeModelCall(telemetry, undefined);
    observed.request(request, messages);
    observed.replied(reply);
    const [span] = exporter.getFinishedSpans();
    expect(JSON.parse(span.attributes['gen_ai.input.messages'] as string)).toEqual(messages);
    expect(span.attributes['gen_ai.output.messages']).toContain('Paris.');
    expect(span.attributes['gen_ai.system_instructions']).toContain('Be brief.');
  });

  it('marks a failed call as an error with its type, and counts it as an error', async () => {
    const { exporter, metrics, telemetry } = setup();
    const observed = observeModelCall(telemetry, undefined);
    observed.request(request, messages);
    observed.failed(Object.assign(new Error('overloaded'), { type: 'OverloadedError' }));
    const [span] = exporter.getFinishedSpans();
    expect(span.status.code).toBe(2);
    expect(span.attributes['error.type']).toBe('OverloadedError');
    expect(span.status.message).toBe('overloaded');
    expect(sumOf(parsePrometheus(await metrics.text()), 'durable_agent_model_calls_total', { outcome: 'error' })).toBe(1);
  });
});

describe('observeToolCall', () => {
  it('with encryption on leaves a failure\'s message off the span (it may quote content), keeping its type', async () => {
    const { exporter, telemetry } = setup();
    const failing = () => Promise.reject(Object.assign(new Error('cannot open /secret/report-for-acme.pdf'), { name: 'ToolCrash' }));
    await expect(observeToolCall({ ...telemetry, encrypts: true }, { name: 'read', toolUseId: 't', input: {} }, failing)).rejects.toThrow();
    const [span] = exporter.getFinishedSpans();
    expect(span.status).toEqual({ code: 2 });
    expect(span.attributes['error.type']).toBe('ToolCrash');
  });

  const call = { name: 'calculator', toolUseId: 'toolu_1', input: { expression: '2 + 2' } };

  it('makes one "execute_tool <tool>" span, child of the active span, and counts the call', async () => {
    const { exporter, metrics, telemetry } = setup();
    const parent = telemetry.tracer!.startSpan('RunActivity:runTool');
    await context.with(trace.setSpan(context.active(), parent), () => observeToolCall(telemetry, call, async () => ({ isError: false, content: '4' })));
    parent.end();
    const span = exporter.getFinishedSpans().find((s) => s.name === 'execute_tool calculator')!;
    expect(span.parentSpanId).toBe(parent.spanContext().spanId);
    expect(span.attributes).toMatchObject({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'calculator', 'gen_ai.tool.call.id': 'toolu_1' });
    expect(span.attributes).not.toHaveProperty('gen_ai.tool.call.arguments');
    expect(sumOf(parsePrometheus(await metrics.text()), 'durable_agent_tool_calls_total', { tool: 'calculator' })).toBe(1);
  });

  it('marks an error result, counts it as a tool error, and with capture on records arguments and result', async () => {
    const { exporter, metrics, telemetry } = setup(true);
    const outcome: ToolOutcome = { isError: true, content: 'division by zero' };
    await observeToolCall(telemetry, call, async () => outcome);
    const [span] = exporter.getFinishedSpans();
    expect(span.status.code).toBe(2);
    expect(span.attributes).toMatchObject({ 'error.type': 'tool_error', 'gen_ai.tool.call.arguments': '{"expression":"2 + 2"}', 'gen_ai.tool.call.result': 'division by zero' });
    expect(sumOf(parsePrometheus(await metrics.text()), 'durable_agent_tool_errors_total', { tool: 'calculator' })).toBe(1);
  });
});

describe('workerTelemetry', () => {
  const tracing = (captureContent: boolean): AgentTracing => ({
    config: { protocol: 'http/json', captureContent, serviceName: 's' },
    tracer: trace.getTracer('t'),
    resource: Resource.default(),
    spanProcessor: new SimpleSpanProcessor(new InMemorySpanExporter()),
    flush: async () => undefined,
  });

  it('captures content only when opted in and the worker does not encrypt payloads', async () => {
    expect((await workerTelemetry({ tracing: tracing(true), encrypts: false })).activity.captureContent).toBe(true);
    expect((await workerTelemetry({ tracing: tracing(true), encrypts: true })).activity.captureContent).toBe(false);
    expect((await workerTelemetry({ tracing: tracing(false), encrypts: false })).activity.captureContent).toBe(false);
  });

  it('with tracing registers the RunActivity interceptor and the workflow spans exporter', async () => {
    const t = await workerTelemetry({ tracing: tracing(false), encrypts: false });
    expect(t.activityInterceptors).toHaveLength(1);
    expect(typeof (t.sinks as { exporter?: { export?: { fn?: unknown } } }).exporter?.export?.fn).toBe('function');
  });

  it('without tracing or metrics registers do-nothing sinks and no activity interceptor', async () => {
    const t = await workerTelemetry({ tracing: null, encrypts: false });
    expect(t.activityInterceptors).toEqual([]);
    expect(Object.keys(t.sinks).sort()).toEqual(['agentMetrics', 'exporter']);
    expect(t.activity.tracer).toBeUndefined();
  });
});
