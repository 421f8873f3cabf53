// The workflow interceptors of @temporalio/interceptors-opentelemetry, for traced runs only. Bundled with the agent's
// workflow code (src/observability/workflow-interceptors.ts names this module): they trace a run's workflow side
// (RunWorkflow, StartActivity, StartChildWorkflow, ContinueAsNew spans), carry its trace to its activities and
// children in their headers, and install the sandbox's tracer that the run's `invoke_agent` span comes from.
// Their methods are async wrappers: they move a handler's completion (an update's, a signal's) a few microtasks
// later, so a run's commands come in another order with them than without. Only runs started with a trace are
// traced (see tracesRun), decided once when the run starts: an untraced deployment's histories carry no trace
// header on every activity.
// OpenTelemetry's own modules are loaded by a traced run alone, when it is known to be traced (sdk-internals.cjs):
// an untraced run neither evaluates nor holds them.
import { workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';
import { loadOtelWorkflow } from './sdk-internals.cjs';

/** The header Temporal's client interceptor puts on a start (and its workflow interceptors on a child start or a
 * continue-as-new): the trace the run continues. */
const TRACE_HEADER = '_tracer-data';

/** Whether each run held by this sandbox is traced, decided once when it starts (a reused context holds many). */
const traced = new Map<string, boolean>();

/** Whether this run is traced: it was started with a trace (by a client with Temporal's OpenTelemetry interceptor:
 * the CLI's and `serve`'s when OTEL_* is set). A run started without one is not, so its history
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
  gate.on = !!headers && TRACE_HEADER in headers;
  traced.set(gate.runId, gate.on);
  return gate.on;
}

type Method = (input: unknown, next: (input: unknown) => unknown) => unknown;

/** The methods Temporal's OpenTelemetry workflow interceptors implement, by kind: a gate must answer for them
 * before the class is loaded (test/workflows/otel-interceptors.test.ts checks them against the classes). */
export const OTEL_INTERCEPTOR_METHODS = {
  inbound: ['execute', 'handleSignal', 'handleUpdate', 'validateUpdate', 'handleQuery'],
  outbound: ['scheduleActivity', 'scheduleLocalActivity', 'startNexusOperation', 'startChildWorkflowExecution', 'continueAsNew', 'signalWorkflow', 'getLogAttributes', 'getMetricTags'],
  internals: ['dispose'],
} as const;

/** An interceptor with `methods`, each going to the one `make` builds (once, by the first call of a traced run), or
 * straight to `next` while the run is not (yet) known to be traced. */
function gated<T>(methods: readonly string[], make: () => object, gate: Gate, decider?: string): T {
  let inner: Record<string, Method> | undefined;
  const entries = methods.map((name) => [
    name,
    (input: unknown, next: (input: unknown) => unknown) => {
      if (name === decider) decide(gate, (input as { headers?: Record<string, unknown> }).headers);
      if (!gate.on) return next(input);
      inner ??= make() as Record<string, Method>;
      return inner[name].call(inner, input, next);
    },
  ]);
  return Object.fromEntries(entries) as T;
}

export const interceptors = (): WorkflowInterceptors => {
  const gate: Gate = {};
  const otel = () => loadOtelWorkflow().interceptors;
  return {
    inbound: [gated(OTEL_INTERCEPTOR_METHODS.inbound, () => new (otel().OpenTelemetryInboundInterceptor)(), gate, 'execute')],
    outbound: [gated(OTEL_INTERCEPTOR_METHODS.outbound, () => new (otel().OpenTelemetryOutboundInterceptor)(), gate)],
    internals: [
      gated(OTEL_INTERCEPTOR_METHODS.internals, () => new (otel().OpenTelemetryInternalsInterceptor)(), gate),
      {
        dispose(input, next) {
          if (gate.runId) traced.delete(gate.runId);
          next(input);
        },
      },
    ],
  };
};
