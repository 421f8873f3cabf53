// A France run started from a traced caller (a span of the test's own, made current around `startAgent`), as a
// traced service starts one: the run's trace continues the caller's. Shared by the trace tests (an in-test OTLP
// receiver, and a real Jaeger).
import { context, trace } from '@opentelemetry/api';
import { Client } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { expect } from 'vitest';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { agentTracingFromEnv } from '../../src/observability/tracing.js';
import type { AgentResult, AgentSettings } from '../../src/core/types.js';
import type { AgentHarness, TestEnv } from './harness.js';

/** Points this process's exporter at `endpoint` through the standard variables, which are read once, when the
 * first worker is made (src/core/otel-config.ts): call it before. Spans are handed on every 50 ms, not 5 s. */
export function exportTracesTo(endpoint: string, protocol: 'http/json' | 'http/protobuf', serviceName: string): void {
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
  process.env.OTEL_EXPORTER_OTLP_PROTOCOL = protocol;
  process.env.OTEL_SERVICE_NAME = serviceName;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
}

export const FRANCE_TASK = 'What is the population of France, and what is 15% of it?';

/** Runs the France task on `h`'s queue from a traced caller and expects it to complete: its workflow id, the
 * caller's trace id, the settings and the result. The OTEL_* variables must be set before the worker was made. */
export async function runFromTracedCaller(
  env: TestEnv,
  h: AgentHarness,
): Promise<{ workflowId: string; traceId: string; settings: AgentSettings; result: AgentResult }> {
  const tracing = agentTracingFromEnv();
  expect(tracing).not.toBeNull();
  const client = new Client({ connection: env.client.connection, dataConverter: env.dataConverter, interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } });
  const caller = tracing!.tracer.startSpan('caller');
  const settings = defaultSettings({ tools: ['calculator', 'web_search'] });
  const { workflowId } = await context.with(trace.setSpan(context.active(), caller), () => startAgent(client, { task: FRANCE_TASK, settings, taskQueue: h.taskQueue }));
  caller.end();
  const result = await getAgentResult(env.client, workflowId);
  expect(result.status).toBe('completed');
  return { workflowId, traceId: caller.spanContext().traceId, settings, result };
}
