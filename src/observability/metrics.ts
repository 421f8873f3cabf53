// The agent's Prometheus metrics (prom-client): runs, model calls, tokens, cost, tool calls, approvals. The
// activities count what they do, once per attempt; the workflow reports run starts, ends and approvals through a
// sink (src/workflows/telemetry.ts), which Temporal does not call while it replays a run: nothing is counted twice.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Usage } from '../core/types.js';

/** Model calls take seconds to minutes; tool calls milliseconds to hours. */
const MODEL_BUCKETS = [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600];
const TOOL_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800, 3600];

export class AgentMetrics {
  readonly registry = new Registry();
  readonly #runsStarted = new Counter({ name: 'durable_agent_runs_started_total', help: 'Agent runs started (a job, not its continue-as-new runs).', registers: [this.registry] });
  readonly #runsEnded = new Counter({
    name: 'durable_agent_runs_ended_total',
    help: 'Agent runs ended, by status (completed, stopped, failed, cancelled) and guard (none when no guard fired).',
    labelNames: ['status', 'guard'],
    registers: [this.registry],
  });
  readonly #modelCalls = new Counter({ name: 'durable_agent_model_calls_total', help: 'Model call attempts, by model and outcome (ok, error).', labelNames: ['model', 'outcome'], registers: [this.registry] });
  readonly #modelSeconds = new Histogram({
    name: 'durable_agent_model_call_duration_seconds',
    help: 'How long a model call attempt took, by model and outcome.',
    labelNames: ['model', 'outcome'],
    buckets: MODEL_BUCKETS,
    registers: [this.registry],
  });
  readonly #tokens = new Counter({
    name: 'durable_agent_tokens_total',
    help: 'Tokens of model calls, by kind (input, output, cache_read, cache_creation) and model.',
    labelNames: ['kind', 'model'],
    registers: [this.registry],
  });
  readonly #cost = new Counter({ name: 'durable_agent_cost_usd_total', help: 'Cost of model calls in USD at the built-in price table, by model.', labelNames: ['model'], registers: [this.registry] });
  readonly #toolCalls = new Counter({ name: 'durable_agent_tool_calls_total', help: 'Tool call attempts, by tool.', labelNames: ['tool'], registers: [this.registry] });
  readonly #toolErrors = new Counter({
    name: 'durable_agent_tool_errors_total',
    help: 'Tool call attempts that returned an error result or failed, by tool.',
    labelNames: ['tool'],
    registers: [this.registry],
  });
  readonly #toolSeconds = new Histogram({ name: 'durable_agent_tool_call_duration_seconds', help: 'How long a tool call attempt took, by tool.', labelNames: ['tool'], buckets: TOOL_BUCKETS, registers: [this.registry] });
  /** Tool calls waiting for a human decision, per run held by this worker. */
  readonly #waiting = new Map<string, number>();

  constructor() {
    const waiting = this.#waiting;
    new Gauge({
      name: 'durable_agent_approvals_waiting',
      help: 'Tool calls waiting for approval in the runs this worker holds.',
      registers: [this.registry],
      collect() {
        this.set([...waiting.values()].reduce((a, n) => a + n, 0));
      },
    });
  }

  runStarted(): void {
    this.#runsStarted.inc();
  }

  runEnded(status: string, guard: string | null): void {
    this.#runsEnded.inc({ status, guard: guard ?? 'none' });
  }

  /** The calls of run `runKey` waiting for approval now (0 when none, or once it has ended). */
  approvalsWaiting(runKey: string, count: number): void {
    if (count > 0) this.#waiting.set(runKey, count);
    else this.#waiting.delete(runKey);
  }

  modelCall(call: { model: string; seconds: number; ok: boolean; usage?: Usage; costUsd?: number | null }): void {
    const outcome = call.ok ? 'ok' : 'error';
    this.#modelCalls.inc({ model: call.model, outcome });
    this.#modelSeconds.observe({ model: call.model, outcome }, call.seconds);
    const u = call.usage;
    if (u) {
      const kinds = { input: u.input_tokens, output: u.output_tokens, cache_read: u.cache_read_input_tokens, cache_creation: u.cache_creation_input_tokens };
      for (const [kind, n] of Object.entries(kinds)) if (n > 0) this.#tokens.inc({ kind, model: call.model }, n);
    }
    if (call.costUsd) this.#cost.inc({ model: call.model }, call.costUsd);
  }

  toolCall(call: { tool: string; seconds: number; error: boolean }): void {
    this.#toolCalls.inc({ tool: call.tool });
    if (call.error) this.#toolErrors.inc({ tool: call.tool });
    this.#toolSeconds.observe({ tool: call.tool }, call.seconds);
  }

  /** The Prometheus text exposition of these metrics. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
