// Reading what the server recorded: for assertions on a run's history (which events, in what order), never on how
// long something took.
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** A history's events by kind ('TimerStarted', 'ActivityTaskCancelRequested', ...: the name of the one
 * `<kind>EventAttributes` an event carries), in order. */
export function eventKinds(events: HistoryEvent[] | null | undefined): string[] {
  return (events ?? []).map((e) => {
    const key = Object.keys(e).find((k) => k.endsWith('EventAttributes') && (e as Record<string, unknown>)[k] != null);
    return key ? key.charAt(0).toUpperCase() + key.slice(1, -'EventAttributes'.length) : 'Unknown';
  });
}

/** A history event's time in seconds since the epoch (nanosecond precision kept). */
const eventSeconds = (e: HistoryEvent) => Number(e.eventTime?.seconds ?? 0) + (e.eventTime?.nanos ?? 0) / 1e9;

/** For each closed activity of type `activityType` (completed, failed, timed out or cancelled), the seconds the server
 * recorded between scheduling it and its close: what any time the worker measured inside the activity fits within. */
export function closedActivitySeconds(events: HistoryEvent[] | null | undefined, activityType: string): number[] {
  const scheduled = new Map<string, HistoryEvent>();
  const spans: number[] = [];
  for (const e of events ?? []) {
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === activityType) scheduled.set(String(e.eventId), e);
    const closed =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    const from = closed ? scheduled.get(String(closed.scheduledEventId)) : undefined;
    if (from) spans.push(eventSeconds(e) - eventSeconds(from));
  }
  return spans;
}
