// How the agent workflow reports to the worker's metrics (src/observability/metrics.ts): a Temporal sink, a call
// out of the sandbox that is no command and is recorded nowhere. Run starts and ends are not reported while a
// run replays (the worker that ran them live counted them); the approvals count is absolute, so it is reported
// during a replay too, and a worker that takes a run over knows how many of its calls wait.
import type { InjectedSinks } from '@temporalio/worker';
import type { Sinks } from '@temporalio/workflow';

export interface AgentTelemetrySinks extends Sinks {
  agentMetrics: {
    runStarted(): void;
    runEnded(status: string, guard: string | null): void;
    approvalsWaiting(count: number): void;
  };
}

/** For replaying workers and workers without metrics: the sinks exist but do nothing (so that no call is logged as
 * one to an unregistered sink). `exporter` is the sink of the OpenTelemetry workflow interceptors. */
export const ignoredTelemetrySinks: InjectedSinks<AgentTelemetrySinks & { exporter: { export(spans: unknown[]): void } }> = {
  agentMetrics: { runStarted: { fn: () => undefined }, runEnded: { fn: () => undefined }, approvalsWaiting: { fn: () => undefined } },
  exporter: { export: { fn: () => undefined } },
};
