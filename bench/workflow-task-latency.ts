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
  /** The timed-out ones by kind: SCHEDULE_TO_START (a sticky queue's task left for the normal queue) or
   * START_TO_CLOSE (a worker took the task and did not answer in time). */
  timedOutByType: Record<string, number>;
  failed: number;
  /** History events a run holds, by type, averaged over the runs: what the server stored and served for them. */
  eventsPerRun: Record<string, number>;
}

/** temporal.api.enums.v1.TimeoutType's values a workflow task can time out with. */
const TIMEOUT_TYPES: Record<number, string> = { 1: 'START_TO_CLOSE', 2: 'SCHEDULE_TO_START' };

export async function workflowTaskLatency(client: Client, workflowIds: string[]): Promise<WorkflowTaskLatency> {
  const total: number[] = [];
  const toStart: number[] = [];
  let timedOut = 0;
  const timedOutByType: Record<string, number> = {};
  let failed = 0;
  const eventCounts: Record<string, number> = {};
  for (const id of workflowIds) {
    const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
    for (const e of events) {
      const type = Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k]) ?? 'other';
      const name = type.replace(/EventAttributes$/, '');
      eventCounts[name] = (eventCounts[name] ?? 0) + 1;
    }
    const scheduledAt = new Map<number, number>();
    for (const e of events) {
      if (e.workflowTaskScheduledEventAttributes) scheduledAt.set(Number(e.eventId), ms(e.eventTime));
      const started = e.workflowTaskStartedEventAttributes;
      if (started) toStart.push(ms(e.eventTime) - (scheduledAt.get(Number(started.scheduledEventId)) ?? NaN));
      const completed = e.workflowTaskCompletedEventAttributes;
      if (completed) total.push(ms(e.eventTime) - (scheduledAt.get(Number(completed.scheduledEventId)) ?? NaN));
      const timeout = e.workflowTaskTimedOutEventAttributes;
      if (timeout) {
        timedOut++;
        const type = TIMEOUT_TYPES[Number(timeout.timeoutType)] ?? String(timeout.timeoutType);
        timedOutByType[type] = (timedOutByType[type] ?? 0) + 1;
      }
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
    timedOutByType,
    failed,
    eventsPerRun: Object.fromEntries(Object.entries(eventCounts).map(([k, v]) => [k, v / Math.max(1, workflowIds.length)])),
  };
}
