// The process's tracing as the OTEL_* variables configure it (src/observability/tracing.ts), with OpenTelemetry's
// SDK and exporters loaded only when a variable asks for tracing: an untraced worker or CLI command, most of them,
// does not pay their start-up (about a fifth of a second of CPU per process).
import { tracingConfigFromEnv } from '../core/otel-config.js';
import type { AgentTracing } from './tracing.js';

/** agentTracingFromEnv, loading the SDK on first need. A malformed OTEL_* value throws here, as it does there. */
export async function tracingFromEnvOnDemand(env: NodeJS.ProcessEnv = process.env): Promise<AgentTracing | null> {
  if (!tracingConfigFromEnv(env)) return null;
  const { agentTracingFromEnv } = await import('./tracing.js');
  return agentTracingFromEnv(env);
}
