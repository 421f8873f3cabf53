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
