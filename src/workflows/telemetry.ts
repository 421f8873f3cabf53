// The run's telemetry from the workflow's side: its `invoke_agent <name>` span, and its starts, ends and waiting
// approvals for the worker's metrics (through a sink: src/core/telemetry-sink.ts).
// The span comes from the tracer that @temporalio/interceptors-opentelemetry's workflow interceptors install in
// the sandbox (bundled with the agent's workflow code): its ids come from the workflow's seeded randomness and its
// times from the workflow clock, so a replay rebuilds the same span, and it is exported through the interceptors'
// sink, which Temporal does not call while replaying: a recovered run exports it once, when it ends. Activities
// scheduled inside it carry it as their parent (`chat` and `execute_tool` spans hang below it). Without the
// interceptors (a team's own bundle) the tracer is a no-op.
import { ContinueAsNew, proxySinks, workflowInfo } from '@temporalio/workflow';
import { agentEndAttributes, agentSpanName, agentStartAttributes } from '../core/gen-ai.js';
import type { AgentTelemetrySinks } from '../core/telemetry-sink.js';
import type { AgentInput, AgentStatusView } from '../core/types.js';
import { loadOtelWorkflow } from './sdk-internals.cjs';
import { tracesRun } from './otel-interceptors.js';

const { agentMetrics } = proxySinks<AgentTelemetrySinks>();

/** The agent name on a run's span: the sub-agent's, else durable-agent. */
function agentName(input: AgentInput): string {
  return input.subAgent?.name ?? 'durable-agent';
}

/** Runs `loop` inside the run's span; its end records the run's totals (`view`) and how it ended. */
export function inRunSpan<T>(input: AgentInput, ids: { workflowId: string }, view: () => AgentStatusView, loop: () => Promise<T>): Promise<T> {
  if (!tracesRun()) return loop(); // an untraced run (src/workflows/otel-interceptors.ts)
  const { SpanKind, SpanStatusCode, trace } = loadOtelWorkflow().api;
  const tracer = trace.getTracer('durable-agent');
  const attributes = agentStartAttributes({ workflowId: ids.workflowId, agentName: agentName(input), model: input.settings.model });
  return tracer.startActiveSpan(agentSpanName(agentName(input)), { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      return await loop();
    } catch (err) {
      if (err instanceof ContinueAsNew) span.setAttribute('durable_agent.continued_as_new', true);
      else {
        // The kind of failure, not its message: the workflow cannot tell whether its worker encrypts payloads, and a
        // message may quote the run's content (docs/observability.md). The message is in the run's history.
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute('error.type', err instanceof Error ? (err as Error & { type?: string }).type ?? err.name : 'Error');
      }
      throw err;
    } finally {
      span.setAttributes(agentEndAttributes(view()));
      span.end();
    }
  });
}

/** A job started (not a continue-as-new of one). */
export function reportRunStarted(input: AgentInput): void {
  if (!input.carried && !replaying()) agentMetrics.runStarted();
}

export function reportRunEnded(status: string, guard: string | null): void {
  if (!replaying()) agentMetrics.runEnded(status, guard);
}

/** Temporal drops these sink calls while replaying anyway; not making them keeps a replayer without the sink quiet. */
function replaying(): boolean {
  return workflowInfo().unsafe.isReplaying;
}

/** Tracks the run's count of calls waiting for approval, reporting it when it changes. */
export class ApprovalsGauge {
  #last = 0;
  report(count: number): void {
    if (count === this.#last) return;
    this.#last = count;
    agentMetrics.approvalsWaiting(count);
  }
}
