// Where a run's time went, from its history: the milliseconds between each pair of consecutive events, by the pair
// of event types (`ACTIVITY_TASK_SCHEDULED → ACTIVITY_TASK_STARTED`: the server's dispatch of an activity).
import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const EventType = temporal.api.enums.v1.EventType;

const eventName = (e: HistoryEvent) => EventType[e.eventType!].replace('EVENT_TYPE_', '');
const eventMs = (e: HistoryEvent) => Number(e.eventTime!.seconds) * 1000 + (e.eventTime!.nanos ?? 0) / 1e6;

/** Milliseconds between consecutive events, by the pair of event types (every occurrence, in order). */
export function historyGaps(events: HistoryEvent[]): Map<string, number[]> {
  const all = new Map<string, number[]>();
  for (let i = 1; i < events.length; i++) {
    const key = `${eventName(events[i - 1])} → ${eventName(events[i])}`;
    all.set(key, [...(all.get(key) ?? []), eventMs(events[i]) - eventMs(events[i - 1])]);
  }
  return all;
}

export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The median over runs of each run's mean gap per pair, for the pairs that occur more than once in a run. */
export function medianGaps(runs: Array<Map<string, number[]>>): Map<string, number> {
  const keys = [...new Set(runs.flatMap((r) => [...r.keys()].filter((k) => r.get(k)!.length > 1)))];
  return new Map(keys.map((k) => [k, median(runs.flatMap((r) => (r.has(k) ? [mean(r.get(k)!)] : [])))]));
}
