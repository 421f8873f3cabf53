// How one tool call is scheduled: the policy its tool's definition sets (recorded when the run started), over
// the run's default timeout (`--tool-timeout`), over TOOL_CALL_OPTIONS. Pure: the workflow imports it.
import type { ActivityOptions } from '@temporalio/common';
import { formatDuration } from './duration.js';
import { TOOL_CALL_OPTIONS } from './policies.js';
import type { AgentSettings, ToolCallPolicy } from './durable-state.js';

/** What a tool call is scheduled with: timeouts and retry, all in ms. */
export interface ToolCallSchedule {
  timeoutMs: number;
  /** Absent for a tool that completes its calls from outside: nothing beats while it waits. */
  heartbeatTimeoutMs?: number;
  maximumAttempts: number;
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  completesLater: boolean;
  /** Run as a local activity (the tool sets `fast: true`). */
  fast?: true;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000; // TOOL_CALL_OPTIONS.startToCloseTimeout
const DEFAULT_HEARTBEAT_MS = 10_000; // TOOL_CALL_OPTIONS.heartbeatTimeout
const DEFAULT_RETRY = { initialIntervalMs: 1_000, backoffCoefficient: 2, maximumIntervalMs: 30_000 } as const;

/** The schedule of a call to a tool with `policy` (undefined: the tool sets none) in a run with `settings`. */
export function toolCallSchedule(
  policy: ToolCallPolicy | undefined,
  settings: Pick<AgentSettings, 'toolTimeoutMs' | 'heartbeatTimeoutMs'>,
): ToolCallSchedule {
  const retry = policy?.retry ?? {};
  const completesLater = policy?.completesLater === true;
  return {
    timeoutMs: policy?.timeoutMs ?? settings.toolTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(completesLater ? {} : { heartbeatTimeoutMs: policy?.heartbeatTimeoutMs ?? settings.heartbeatTimeoutMs ?? DEFAULT_HEARTBEAT_MS }),
    maximumAttempts: retry.maximumAttempts ?? TOOL_CALL_OPTIONS.retry.maximumAttempts,
    initialIntervalMs: retry.initialIntervalMs ?? DEFAULT_RETRY.initialIntervalMs,
    backoffCoefficient: retry.backoffCoefficient ?? DEFAULT_RETRY.backoffCoefficient,
    maximumIntervalMs: retry.maximumIntervalMs ?? DEFAULT_RETRY.maximumIntervalMs,
    completesLater,
    ...(policy?.fast ? { fast: true as const } : {}),
  };
}

/** The activity options of that schedule. */
export function toolCallActivityOptions(schedule: ToolCallSchedule): ActivityOptions {
  return {
    startToCloseTimeout: schedule.timeoutMs,
    ...(schedule.heartbeatTimeoutMs !== undefined ? { heartbeatTimeout: schedule.heartbeatTimeoutMs } : {}),
    retry: {
      maximumAttempts: schedule.maximumAttempts,
      initialInterval: schedule.initialIntervalMs,
      backoffCoefficient: schedule.backoffCoefficient,
      maximumInterval: schedule.maximumIntervalMs,
    },
  };
}

/** Whether a schedule differs from what a tool that sets nothing gets in a run that sets nothing: then the UI's
 * activity summary says so (`slow_build("x") · timeout 2h`). */
export function scheduleNote(schedule: ToolCallSchedule): string {
  const notes: string[] = [];
  if (schedule.timeoutMs !== DEFAULT_TIMEOUT_MS) notes.push(`timeout ${formatDuration(schedule.timeoutMs)}`);
  if (schedule.completesLater) notes.push('completed from outside');
  if (schedule.fast) notes.push('local');
  if (schedule.maximumAttempts !== TOOL_CALL_OPTIONS.retry.maximumAttempts) {
    notes.push(schedule.maximumAttempts === 0 ? 'unlimited attempts' : `${schedule.maximumAttempts} attempt${schedule.maximumAttempts === 1 ? '' : 's'}`);
  }
  return notes.map((n) => ` · ${n}`).join('');
}

/** `at most 3 attempts` / `attempt 2 of 3`: how a schedule's attempts read in messages. */
export function attemptText(attempt: number, maximumAttempts: number): string {
  return maximumAttempts > 0 ? `attempt ${attempt} of ${maximumAttempts}` : `attempt ${attempt}`;
}
