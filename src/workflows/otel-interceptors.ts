// The workflow interceptors of @temporalio/interceptors-opentelemetry, behind a patch. Bundled with the agent's
// workflow code (src/observability/workflow-interceptors.ts names this module): they trace a run's workflow side
// (RunWorkflow, StartActivity, StartChildWorkflow, ContinueAsNew spans), carry its trace to its activities and
// children in their headers, and install the sandbox's tracer that the run's `invoke_agent` span comes from.
// Their methods are async wrappers: they move a handler's completion (an update's, a signal's) a few microtasks
// later, so a run recorded without them would replay its commands in another order. Only runs that took the
// patch are traced; a run recorded before it replays, and goes on, exactly as it ran. And only runs started with a
// trace (see tracesRun): an untraced deployment's histories carry no trace header on every activity.
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { patched, workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';

/** Patch id: the run is traced (the OpenTelemetry workflow interceptors, and its `invoke_agent` span). */
export const TRACE_RUNS = 'trace-runs';

/** The header Temporal's client interceptor puts on a start (and its workflow interceptors on a child start or a
 * continue-as-new): the trace the run continues. */
const TRACE_HEADER = '_tracer-data';

/** Whether each run held by this sandbox is traced, decided once when it starts (a reused context holds many). */
const traced = new Map<string, boolean>();

/** Whether this run is traced: it was started with a trace (by a client with Temporal's OpenTelemetry interceptor:
 * the CLI's and `serve`'s when OTEL_* is set) and took the patch. A run started without one is not, so its history
 * carries no trace header on every activity. */
export function tracesRun(): boolean {
  return traced.get(workflowInfo().runId) ?? false;
}

interface Gate {
  on?: boolean;
  runId?: string;
}

function decide(gate: Gate, headers: Record<string, unknown> | undefined): boolean {
  gate.runId = workflowInfo().runId;
  gate.on = !!headers && TRACE_HEADER in headers && patched(TRACE_RUNS);
  traced.set(gate.runId, gate.on);
  return gate.on;
}

type Method = (input: unknown, next: (input: unknown) => unknown) => unknown;

/** `inner`'s methods, run only once the run is known to be traced; otherwise straight to `next`. */
function gated<T extends object>(inner: T, gate: Gate, decider?: string): T {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const method = value as Method;
      return (input: unknown, next: (input: unknown) => unknown) => {
        if (prop === decider) decide(gate, (input as { headers?: Record<string, unknown> }).headers);
        return gate.on ? method.call(target, input, next) : next(input);
      };
    },
  });
}

export const interceptors = (): WorkflowInterceptors => {
  const gate: Gate = {};
  return {
    inbound: [gated(new OpenTelemetryInboundInterceptor(), gate, 'execute')],
    outbound: [gated(new OpenTelemetryOutboundInterceptor(), gate)],
    internals: [
      new OpenTelemetryInternalsInterceptor(),
      {
        dispose(input, next) {
          if (gate.runId) traced.delete(gate.runId);
          next(input);
        },
      },
    ],
  };
};
