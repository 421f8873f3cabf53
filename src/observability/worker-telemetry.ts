// What a worker adds for traces and metrics: Temporal's activity interceptor (the RunActivity span, the parent of
// our `chat` and `execute_tool` spans, continuing the trace the workflow put in the activity's headers), the sink
// the workflow interceptors export their spans through, the sink the workflow reports its metrics through, and what
// the activities report with.
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import { ignoredTelemetrySinks, type AgentTelemetrySinks } from '../core/telemetry-sink.js';
import type { ActivityTelemetry } from './activity-telemetry.js';
import type { AgentMetrics } from './metrics.js';
import type { AgentTracing } from './tracing.js';

export interface WorkerTelemetry {
  activity: ActivityTelemetry;
  activityInterceptors: ActivityInterceptorsFactory[];
  sinks: InjectedSinks<AgentTelemetrySinks> & InjectedSinks<Record<string, never>>;
}

/** Temporal's OpenTelemetry interceptors are loaded only with tracing on: an untraced worker does without them. */
export async function workerTelemetry(options: { tracing: AgentTracing | null; metrics?: AgentMetrics; encrypts: boolean }): Promise<WorkerTelemetry> {
  const { tracing, metrics } = options;
  const otel = tracing ? await import('@temporalio/interceptors-opentelemetry') : undefined;
  const sinks: Record<string, unknown> = { ...ignoredTelemetrySinks };
  if (tracing && otel) sinks.exporter = otel.makeWorkflowExporter(tracing.spanProcessor, tracing.resource);
  if (metrics) {
    sinks.agentMetrics = {
      runStarted: { fn: () => metrics.runStarted() },
      runEnded: { fn: (_info: unknown, status: string, guard: string | null) => metrics.runEnded(status, guard) },
      // Absolute, so a replay may report it too: the worker that takes a run over learns its count.
      approvalsWaiting: { fn: (info: { runId: string }, count: number) => metrics.approvalsWaiting(info.runId, count), callDuringReplay: true },
    };
  }
  return {
    activity: {
      tracer: tracing?.tracer,
      // Never with encryption on: the spans would carry in clear what history keeps encrypted.
      captureContent: !!tracing?.config.captureContent && !options.encrypts,
      encrypts: options.encrypts,
      metrics,
    },
    // Inbound: the RunActivity span; outbound: the activity's log lines carry its trace_id and span_id.
    activityInterceptors:
      tracing && otel
        ? [(ctx) => ({ inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx, { tracer: tracing.tracer }), outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx) })]
        : [],
    sinks: sinks as WorkerTelemetry['sinks'],
  };
}
