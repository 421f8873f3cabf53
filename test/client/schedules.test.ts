// A schedule's spec from `cron` or `every` (exactly one), checked before anything reaches the server.
import { describe, expect, it } from 'vitest';
import { checkScheduleName, InvalidScheduleError, scheduleSpec } from '../../src/client/schedules.js';

describe('scheduleSpec', () => {
  it('turns every into an interval in milliseconds and cron into a cron expression, with jitter and time zone', () => {
    expect(scheduleSpec({ every: '5s' })).toEqual({ intervals: [{ every: 5_000 }] });
    expect(scheduleSpec({ every: 3_600_000, jitter: '30s' })).toEqual({ intervals: [{ every: 3_600_000 }], jitter: 30_000 });
    expect(scheduleSpec({ cron: '0 9 * * 1-5', timezone: 'Europe/Paris' })).toEqual({ cronExpressions: ['0 9 * * 1-5'], timezone: 'Europe/Paris' });
  });

  it('refuses neither or both, an interval under a second, a duration it cannot read, a cron of fewer than 5 fields', () => {
    expect(() => scheduleSpec({})).toThrow(/give either a cron expression or an interval \(every\), exactly one/);
    expect(() => scheduleSpec({ every: '1h', cron: '* * * * *' })).toThrow(InvalidScheduleError);
    expect(() => scheduleSpec({ every: '500ms' })).toThrow(/every must be at least 1000 ms/);
    expect(() => scheduleSpec({ every: '90' })).toThrow(/every: invalid duration "90"/);
    expect(() => scheduleSpec({ cron: '0 9 *' })).toThrow(/needs 5 fields/);
    expect(() => scheduleSpec({ every: '1h', jitter: 'a bit' })).toThrow(/jitter: invalid duration/);
  });

  it('refuses a cron of 6 or 7 fields (seconds first, as Quartz writes it), which the server would read as a year field and fire on other days', () => {
    // The server reads "0 0 2 * * *" as minute 0, hour 0, day-of-month 2, any month, any weekday, any year: monthly
    // on the 2nd at midnight, not daily at 02:00.
    expect(() => scheduleSpec({ cron: '0 0 2 * * *' })).toThrow(/the cron expression "0 0 2 \* \* \*" has 6 fields: it needs 5 fields \(minute hour day-of-month month day-of-week; no seconds\)/);
    expect(() => scheduleSpec({ cron: ['0 9 * * 1-5', '0 0 9 * * * 2027'] })).toThrow(/"0 0 9 \* \* \* 2027" has 7 fields/);
  });
});

describe('checkScheduleName', () => {
  it('takes letters, digits and . _ @ - (a Temporal schedule id and the prefix of its runs\' ids)', () => {
    expect(() => checkScheduleName('nightly-triage.v2')).not.toThrow();
    expect(() => checkScheduleName('nightly triage')).toThrow(/schedule name "nightly triage" is not usable/);
    expect(() => checkScheduleName("o'clock")).toThrow(InvalidScheduleError);
  });
});
