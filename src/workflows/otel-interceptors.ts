// The workflow interceptors of @temporalio/interceptors-opentelemetry, behind a patch. Bundled with the agent's
// workflow code (src/observability/workflow-interceptors.ts names this module): they trace a run's workflow side
// (RunWorkflow, StartActivity, StartChildWorkflow, ContinueAsNew spans), carry its trace to its activities and
// children in their headers, and install the sandbox's tracer that the run's `invoke_agent` span comes from.
// Their methods are async wrappers: they move a handler's completion (an update's, a signal's) a few microtasks
// later, so a run recorded without them would replay its commands in another order. Only runs that took the
// patch are traced; a run recorded before it replays, and goes on, exactly as it ran.
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import { patched, type WorkflowInterceptors } from '@temporalio/workflow';

/** Patch id: the run is traced (the OpenTelemetry workflow interceptors, and its `invoke_agent` span). */
export const TRACE_RUNS = 'trace-runs';

/** Whether this run is traced (asked first by the interceptors' `execute`, before the workflow function runs). */
export function tracesRun(): boolean {
  return patched(TRACE_RUNS);
}

type Method = (input: unknown, next: (input: unknown) => unknown) => unknown;

/** `inner`'s methods, run only once the run is known to be traced; otherwise straight to `next`. */
function gated<T extends object>(inner: T, gate: { on?: boolean }, decide?: string): T {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const method = value as Method;
      return (input: unknown, next: (input: unknown) => unknown) => {
        if (prop === decide) gate.on = tracesRun();
        return gate.on ? method.call(target, input, next) : next(input);
      };
    },
  });
}

export const interceptors = (): WorkflowInterceptors => {
  const gate: { on?: boolean } = {};
  return {
    inbound: [gated(new OpenTelemetryInboundInterceptor(), gate, 'execute')],
    outbound: [gated(new OpenTelemetryOutboundInterceptor(), gate)],
    internals: [new OpenTelemetryInternalsInterceptor()],
  };
};
