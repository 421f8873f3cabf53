import { describe, expect, it } from 'vitest';
import { scheduleNote, toolCallActivityOptions, toolCallSchedule } from '../../src/core/tool-policy.js';

describe('toolCallSchedule', () => {
  it('gives a tool that sets nothing, in a run that sets nothing, the defaults of TOOL_CALL_OPTIONS', () => {
    expect(toolCallSchedule(undefined, {})).toEqual({
      timeoutMs: 300_000,
      heartbeatTimeoutMs: 10_000,
      maximumAttempts: 3,
      initialIntervalMs: 1_000,
      backoffCoefficient: 2,
      maximumIntervalMs: 30_000,
      completesLater: false,
    });
  });

  it("lets the run's --tool-timeout and --heartbeat-timeout set the defaults, and the tool's own policy win over them", () => {
    const run = { toolTimeoutMs: 600_000, heartbeatTimeoutMs: 20_000 };
    expect(toolCallSchedule(undefined, run)).toMatchObject({ timeoutMs: 600_000, heartbeatTimeoutMs: 20_000 });
    expect(toolCallSchedule({ timeoutMs: 7_200_000, retry: { maximumAttempts: 1 } }, run)).toMatchObject({
      timeoutMs: 7_200_000,
      heartbeatTimeoutMs: 20_000,
      maximumAttempts: 1,
    });
  });

  it('schedules a tool that completes its calls from outside without a heartbeat timeout', () => {
    const schedule = toolCallSchedule({ completesLater: true, timeoutMs: 3_600_000 }, { heartbeatTimeoutMs: 5_000 });
    expect(schedule.heartbeatTimeoutMs).toBeUndefined();
    expect(toolCallActivityOptions(schedule)).not.toHaveProperty('heartbeatTimeout');
    expect(toolCallActivityOptions(schedule)).toMatchObject({ startToCloseTimeout: 3_600_000, retry: { maximumAttempts: 3 } });
  });

  it("notes in the UI's activity summary only what differs from the defaults", () => {
    expect(scheduleNote(toolCallSchedule(undefined, {}))).toBe('');
    expect(scheduleNote(toolCallSchedule({ timeoutMs: 7_200_000 }, {}))).toBe(' · timeout 2h');
    expect(scheduleNote(toolCallSchedule({ completesLater: true, retry: { maximumAttempts: 1 } }, {}))).toBe(
      ' · completed from outside · 1 attempt',
    );
    expect(scheduleNote(toolCallSchedule({ fast: true }, {}))).toBe(' · local');
  });

  it('a fast tool’s schedule says so; any other has no fast field (its calls stay activities)', () => {
    expect(toolCallSchedule({ fast: true }, {})).toMatchObject({ fast: true });
    expect(toolCallSchedule(undefined, {})).not.toHaveProperty('fast');
    expect(toolCallSchedule({ completesLater: true }, {})).not.toHaveProperty('fast');
  });
});
