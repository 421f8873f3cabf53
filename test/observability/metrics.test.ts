// `worker --metrics-port N`: after a few runs, GET /metrics holds the agent's metrics with the values the runs
// report, and Temporal's own worker metrics, on the one port.
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSettings, getAgentResult, getStatus, startAgent } from '../../src/client/index.js';
import { findFreePort } from '../../src/devserver/ports.js';
import { stopWorker, useCli, type CliProcess } from '../helpers/cli.js';
import { closedActivitySeconds } from '../helpers/history.js';
import { parsePrometheus, sumOf } from '../helpers/prometheus.js';

const cli = useCli();
let worker: CliProcess | undefined;
afterEach(async () => {
  await stopWorker(worker);
});

const TASK = 'What is the population of France, and what is 15% of it?';

describe('worker --metrics-port', () => {
  it('serves the agent metrics (runs by status and guard, model latency, tokens, cost, tool calls, approvals waiting) and Temporal worker metrics', async () => {
    const s = cli.session();
    const port = await findFreePort();
    worker = s.spawn(['worker', '--scripted', '--metrics-port', String(port)]);
    await worker.waitForStderr(new RegExp(`metrics: http://0\\.0\\.0\\.0:${port}/metrics`));
    const client = cli.client();
    const start = (settings: Parameters<typeof defaultSettings>[0]) =>
      startAgent(client, { task: TASK, settings: defaultSettings({ tools: ['calculator', 'web_search'], ...settings }), taskQueue: s.taskQueue });
    const runs = await Promise.all([start({}), start({}), start({ maxSteps: 1 })]);
    const results = await Promise.all(runs.map((r) => getAgentResult(client, r.workflowId)));
    expect(results.map((r) => [r.status, r.guard])).toEqual([['completed', null], ['completed', null], ['stopped', 'max_steps']]);
    // A fourth run waits for a decision on its calculator call.
    const waiting = await start({ approve: ['calculator'] });
    await expect.poll(async () => (await getStatus(client, waiting.workflowId)).view?.pendingApprovals.length, { timeout: 15_000 }).toBe(1);
    const waitingView = (await getStatus(client, waiting.workflowId)).view!;

    const url = `http://127.0.0.1:${port}/metrics`;
    let samples = parsePrometheus(await (await fetch(url)).text());
    await expect.poll(async () => {
      samples = parsePrometheus(await (await fetch(url)).text());
      return sumOf(samples, 'durable_agent_approvals_waiting');
    }, { timeout: 10_000 }).toBe(1);
    const res = await fetch(url);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);

    expect(sumOf(samples, 'durable_agent_runs_started_total')).toBe(4);
    expect(sumOf(samples, 'durable_agent_runs_ended_total', { status: 'completed', guard: 'none' })).toBe(2);
    expect(sumOf(samples, 'durable_agent_runs_ended_total', { status: 'stopped', guard: 'max_steps' })).toBe(1);
    const model = defaultSettings({}).model;
    const calls = results.reduce((a, r) => a + r.steps, 0) + waitingView.steps;
    expect(sumOf(samples, 'durable_agent_model_calls_total', { model, outcome: 'ok' })).toBe(calls);
    expect(sumOf(samples, 'durable_agent_model_call_duration_seconds_count', { model, outcome: 'ok' })).toBe(calls);
    const seconds = sumOf(samples, 'durable_agent_model_call_duration_seconds_sum', { model });
    expect(seconds).toBeGreaterThan(0);
    // In seconds, not milliseconds: each call's duration, measured inside its activity, fits within the span the
    // server recorded from scheduling that activity to its completion (history event times, in seconds).
    const histories = await Promise.all([...runs, waiting].map((r) => client.workflow.getHandle(r.workflowId).fetchHistory()));
    const spans = histories.flatMap((h) => closedActivitySeconds(h.events, 'callModel'));
    expect(spans).toHaveLength(calls);
    expect(seconds).toBeLessThanOrEqual(spans.reduce((a, b) => a + b, 0));
    // Buckets are cumulative: the +Inf bucket holds every call.
    expect(sumOf(samples, 'durable_agent_model_call_duration_seconds_bucket', { model, outcome: 'ok', le: '+Inf' })).toBe(calls);
    const usages = [...results.map((r) => r.usage), waitingView.usage];
    expect(sumOf(samples, 'durable_agent_tokens_total', { kind: 'input', model })).toBe(usages.reduce((a, u) => a + u.input_tokens, 0));
    expect(sumOf(samples, 'durable_agent_tokens_total', { kind: 'output', model })).toBe(usages.reduce((a, u) => a + u.output_tokens, 0));
    const cost = results.reduce((a, r) => a + (r.costUsd ?? 0), 0) + (waitingView.costUsd ?? 0);
    expect(cost).toBeGreaterThan(0);
    expect(sumOf(samples, 'durable_agent_cost_usd_total', { model })).toBeCloseTo(cost, 9);
    // France: web_search then calculator; the guarded run searched once; the waiting run searched, its calculator waits.
    expect(sumOf(samples, 'durable_agent_tool_calls_total', { tool: 'web_search' })).toBe(4);
    expect(sumOf(samples, 'durable_agent_tool_calls_total', { tool: 'calculator' })).toBe(2);
    expect(sumOf(samples, 'durable_agent_tool_errors_total')).toBe(0);
    expect(sumOf(samples, 'durable_agent_tool_call_duration_seconds_count', { tool: 'web_search' })).toBe(4);

    // Temporal's own worker metrics follow ours on the same port.
    const temporal = samples.filter((x) => x.name.startsWith('temporal_'));
    expect(temporal.length).toBeGreaterThan(10);
    expect(sumOf(samples, 'temporal_workflow_completed', { task_queue: s.taskQueue })).toBe(3);
  });
});
