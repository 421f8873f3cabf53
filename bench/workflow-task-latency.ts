// Workflow task latency read from runs' histories: for each workflow task, scheduled → completed (the time a run
// waited for its worker to take the task and answer it), and scheduled → started (the part spent waiting for a
// poller and a free slot).
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const ms = (t: HistoryEvent['eventTime']) => Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
const percentile = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] : NaN);

export interface WorkflowTaskLatency {
  /** Workflow tasks measured (completed ones) and the runs they came from. */
  tasks: number;
  runs: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Scheduled → started: waiting for a poller and a slot. */
  toStartP50Ms: number;
  toStartP95Ms: number;
  /** Workflow tasks that timed out or failed (each one is retried, often by a replay). */
  timedOut: number;
  failed: number;
}

export async function workflowTaskLatency(client: Client, workflowIds: string[]): Promise<WorkflowTaskLatency> {
  const total: number[] = [];
  const toStart: number[] = [];
  let timedOut = 0;
  let failed = 0;
  for (const id of workflowIds) {
    const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
    const scheduledAt = new Map<number, number>();
    for (const e of events) {
      if (e.workflowTaskScheduledEventAttributes) scheduledAt.set(Number(e.eventId), ms(e.eventTime));
      const started = e.workflowTaskStartedEventAttributes;
      if (started) toStart.push(ms(e.eventTime) - (scheduledAt.get(Number(started.scheduledEventId)) ?? NaN));
      const completed = e.workflowTaskCompletedEventAttributes;
      if (completed) total.push(ms(e.eventTime) - (scheduledAt.get(Number(completed.scheduledEventId)) ?? NaN));
      if (e.workflowTaskTimedOutEventAttributes) timedOut++;
      if (e.workflowTaskFailedEventAttributes) failed++;
    }
  }
  return {
    tasks: total.length,
    runs: workflowIds.length,
    p50Ms: percentile(total, 0.5),
    p95Ms: percentile(total, 0.95),
    maxMs: percentile(total, 1),
    toStartP50Ms: percentile(toStart, 0.5),
    toStartP95Ms: percentile(toStart, 0.95),
    timedOut,
    failed,
  };
}
