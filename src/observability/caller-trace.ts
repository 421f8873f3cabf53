// A CLI command as part of its caller's trace: with tracing configured (OTEL_*), a TRACEPARENT (and TRACESTATE) in
// the environment, the W3C carrier a traced script or service passes to a process it runs, makes `start` / `run`
// continue that trace; the spans the command made are exported before it exits.
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { agentTracingFromEnv } from './tracing.js';

export async function withCallerTrace<T>(fn: () => Promise<T>, env: NodeJS.ProcessEnv = process.env): Promise<T> {
  const tracing = agentTracingFromEnv(env);
  if (!tracing) return fn();
  const carrier: Record<string, string> = {};
  if (env.TRACEPARENT) carrier.traceparent = env.TRACEPARENT;
  if (env.TRACESTATE) carrier.tracestate = env.TRACESTATE;
  const caller = propagation.extract(ROOT_CONTEXT, carrier);
  try {
    return await context.with(caller, fn);
  } finally {
    await tracing.flush().catch(() => undefined); // an unreachable collector does not fail the command
  }
}
