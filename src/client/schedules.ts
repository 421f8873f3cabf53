// Recurring runs on Temporal Schedules: the server starts an ordinary agent run at each firing (cron or interval,
// with Temporal's overlap policy, catch-up window and jitter), the task and settings stored once in the schedule's
// action. Each run it starts carries Temporal's own `TemporalScheduledById` search attribute (the schedule's name),
// which `listRuns({ schedule })` filters on; its workflow id is `<name>-<scheduled time>`.
import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  type Client,
  type ScheduleDescription,
  type ScheduleHandle,
  type ScheduleOverlapPolicy,
  type ScheduleSpec,
  type ScheduleSummary,
} from '@temporalio/client';
import { checkAgentInput } from '../core/settings-check.js';
import type { AgentInput, AgentSettings } from '../core/types.js';
import { durationMs as checkedDuration } from '../tools/policy.js';
import { validateJsonSchema } from '../tools/validate.js';
import { AGENT_WORKFLOW } from '../workflows/definitions.js';
import type { OverlapPolicy } from '../core/schedule-overlap.js';
import { invalidArgument, runSearchAttributes, runStart, searchAttributesRegistered } from './start.js';

export { ScheduleNotFoundError };
export { OVERLAP_POLICIES, type OverlapPolicy } from '../core/schedule-overlap.js';

/** A schedule's name is its Temporal schedule id and the prefix of its runs' workflow ids. */
const NAME = /^[A-Za-z0-9][\w.@-]{0,99}$/;
/** The shortest interval: a schedule firing faster than a run can start is a mistake. */
export const MIN_INTERVAL_MS = 1_000;

/** A schedule asked for in a way that cannot work: a bad name, no or two specs, a bad duration, a name taken. */
export class InvalidScheduleError extends Error {
  override name = 'InvalidScheduleError';
}

export interface CreateScheduleOptions {
  /** The schedule's name (its Temporal schedule id): letters, digits and . _ @ -, at most 100. */
  name: string;
  task: string;
  settings: AgentSettings;
  /** Cron expressions (`0 9 * * 1-5`), interpreted in `timezone` (UTC by default). Give this or `every`. */
  cron?: string | string[];
  /** An interval (`5s`, `1h`, or milliseconds). Give this or `cron`. */
  every?: string | number;
  /** What a firing does while the previous run still runs: `skip` (default), `buffer_one`, `buffer_all`,
   * `cancel_other`, `terminate_other`, `allow_all`. */
  overlap?: OverlapPolicy;
  /** After a server outage, firings missed by at most this long are taken (Temporal's default: 1 year). */
  catchupWindow?: string | number;
  /** Each firing is delayed by a random time up to this. */
  jitter?: string | number;
  /** IANA time zone of the cron expressions (`Europe/Paris`). */
  timezone?: string;
  /** Created paused (`unpause` starts it). */
  paused?: boolean;
  /** A note shown by `schedule describe` (Temporal's schedule note). */
  note?: string;
  taskQueue?: string;
}

export interface AgentScheduleSummary {
  name: string;
  /** The spec in words: `every 5s`, `cron 0 9 * * 1-5`. */
  spec: string;
  paused: boolean;
  note?: string;
  /** The next firing times the server has computed. */
  nextRuns: Date[];
  /** The runs it started most recently (older first), as Temporal recorded them. */
  recentRuns: ScheduledRun[];
}

export interface ScheduledRun {
  workflowId: string;
  /** When the firing was due (jitter included). */
  scheduledAt: Date;
  startedAt: Date;
}

export interface AgentScheduleDescription extends AgentScheduleSummary {
  task: string;
  settings: AgentSettings;
  taskQueue: string;
  overlap: OverlapPolicy;
  catchupWindowMs: number;
  jitterMs: number;
  timezone?: string;
  /** Firings taken so far (triggers included). */
  runsStarted: number;
  /** Firings skipped because the previous run was still running (overlap `skip`). */
  skippedOverlap: number;
  createdAt: Date;
}

/** Creates the schedule; throws InvalidSettingsError for bad settings and InvalidScheduleError for a bad spec or a
 * name already taken, before anything is stored. */
export async function createAgentSchedule(client: Client, options: CreateScheduleOptions): Promise<{ name: string }> {
  checkScheduleName(options.name);
  checkAgentInput(options.task, options.settings, { compileSchema: validateJsonSchema });
  const spec = scheduleSpec(options);
  const settings = { ...options.settings };
  settings.searchAttributes ??= await searchAttributesRegistered(client);
  const input: AgentInput = { task: options.task, settings };
  try {
    await client.schedule.create({
      scheduleId: options.name,
      spec,
      action: {
        type: 'startWorkflow',
        workflowType: AGENT_WORKFLOW,
        // Temporal appends the firing's time: `<name>-2026-12-06T09:00:00Z`.
        workflowId: options.name,
        ...runStart(client, input, options.taskQueue, options.task),
        ...(settings.searchAttributes ? { typedSearchAttributes: runSearchAttributes(settings) } : {}),
      },
      policies: {
        overlap: (options.overlap ?? 'skip').toUpperCase() as ScheduleOverlapPolicy,
        ...(options.catchupWindow !== undefined ? { catchupWindow: durationMs('catchupWindow', options.catchupWindow) } : {}),
      },
      // The spec as the user gave it: the server keeps a cron expression only compiled into calendar ranges.
      memo: { [SPEC_MEMO]: specWords(options) },
      state: { paused: options.paused ?? false, ...(options.note ? { note: options.note } : {}) },
    });
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) {
      throw new InvalidScheduleError(`a schedule named "${options.name}" already exists: delete it first (schedule delete ${options.name}) or choose another name`);
    }
    const invalid = invalidArgument(err); // a cron expression it cannot parse, an unknown time zone
    if (invalid) throw new InvalidScheduleError(`the server refused the schedule: ${invalid}`);
    throw err;
  }
  return { name: options.name };
}

/** The agent's schedules (those whose action starts an agent run), in the order the server lists them. */
export async function listAgentSchedules(client: Client): Promise<AgentScheduleSummary[]> {
  const found: AgentScheduleSummary[] = [];
  for await (const s of client.schedule.list()) {
    if (s.action?.workflowType === AGENT_WORKFLOW) found.push(summaryOf(s));
  }
  return found;
}

/** Everything a schedule holds and has done. Throws ScheduleNotFoundError for an unknown name (or a schedule that
 * starts no agent run). */
export async function describeAgentSchedule(client: Client, name: string): Promise<AgentScheduleDescription> {
  const { d } = await agentSchedule(client, name);
  const [input] = (d.action.args ?? []) as [AgentInput | undefined];
  return {
    ...summaryOf(d),
    task: input?.task ?? '',
    settings: input?.settings as AgentSettings,
    taskQueue: d.action.taskQueue,
    overlap: (d.policies.overlap ?? 'SKIP').toLowerCase() as OverlapPolicy,
    catchupWindowMs: d.policies.catchupWindow,
    jitterMs: d.spec.jitter ?? 0,
    ...(d.spec.timezone ? { timezone: d.spec.timezone } : {}),
    runsStarted: d.info.numActionsTaken,
    skippedOverlap: d.info.numActionsSkippedOverlap,
    createdAt: d.info.createdAt,
  };
}

export async function pauseAgentSchedule(client: Client, name: string, note?: string): Promise<void> {
  await (await agentSchedule(client, name)).handle.pause(note);
}

export async function unpauseAgentSchedule(client: Client, name: string, note?: string): Promise<void> {
  await (await agentSchedule(client, name)).handle.unpause(note);
}

/** Starts a run now, outside the spec (the overlap policy applies, as to any firing). */
export async function triggerAgentSchedule(client: Client, name: string, overlap?: OverlapPolicy): Promise<void> {
  await (await agentSchedule(client, name)).handle.trigger(overlap ? (overlap.toUpperCase() as ScheduleOverlapPolicy) : undefined);
}

/** Deletes the schedule: it fires no more. The runs it started are left as they are (running ones go on). */
export async function deleteAgentSchedule(client: Client, name: string): Promise<void> {
  await (await agentSchedule(client, name)).handle.delete();
}

/** The schedule named `name`, refused unless its action starts agent runs (the namespace holds a team's others). */
async function agentSchedule(client: Client, name: string): Promise<{ handle: ScheduleHandle; d: ScheduleDescription }> {
  const handle = client.schedule.getHandle(name);
  const d = await handle.describe();
  if (d.action.workflowType !== AGENT_WORKFLOW) throw new ScheduleNotFoundError(`schedule "${name}" does not start agent runs`, name);
  return { handle, d };
}

export function checkScheduleName(name: string): void {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new InvalidScheduleError(`the schedule name "${String(name).slice(0, 60)}" is not usable: letters, digits and . _ @ - (at most 100, starting with a letter or digit)`);
  }
}

/** The Temporal spec from `cron` or `every` (exactly one), with jitter and time zone. */
export function scheduleSpec(options: Pick<CreateScheduleOptions, 'cron' | 'every' | 'jitter' | 'timezone'>): ScheduleSpec {
  const crons = options.cron === undefined ? [] : Array.isArray(options.cron) ? options.cron : [options.cron];
  if ((crons.length > 0) === (options.every !== undefined)) {
    throw new InvalidScheduleError('give either a cron expression or an interval (every), exactly one: e.g. cron "0 9 * * 1-5" or every "1h"');
  }
  // Exactly five: the server also takes six or seven, reading the sixth as a year (and a seventh's first as seconds),
  // so a seconds-first expression as Quartz writes it ("0 0 2 * * *", daily at 02:00) would fire monthly on the 2nd.
  const fields = (c: unknown) => (typeof c === 'string' ? c.trim().split(/\s+/).length : 0);
  const bad = crons.find((c) => fields(c) !== 5);
  if (bad !== undefined) {
    const more = fields(bad) > 5 ? ` has ${fields(bad)} fields: it` : '';
    throw new InvalidScheduleError(`the cron expression "${String(bad)}"${more} needs 5 fields (minute hour day-of-month month day-of-week; no seconds), e.g. "0 9 * * 1-5"`);
  }
  const spec: ScheduleSpec = crons.length > 0 ? { cronExpressions: crons } : { intervals: [{ every: durationMs('every', options.every!, MIN_INTERVAL_MS) }] };
  if (options.jitter !== undefined) spec.jitter = durationMs('jitter', options.jitter);
  if (options.timezone !== undefined) spec.timezone = options.timezone;
  return spec;
}

/** A duration in ms, checked as a tool's are (the same words), refused with an InvalidScheduleError. */
function durationMs(field: string, value: string | number, min = 0): number {
  try {
    return checkedDuration(value, field, min);
  } catch (err) {
    throw new InvalidScheduleError((err as Error).message);
  }
}

const SPEC_MEMO = 'durableAgentSpec';
const memoSpec = (memo: Record<string, unknown> | undefined) => (typeof memo?.[SPEC_MEMO] === 'string' ? memo[SPEC_MEMO] : undefined);

function specWords(options: Pick<CreateScheduleOptions, 'cron' | 'every' | 'jitter' | 'timezone'>): string {
  const crons = options.cron === undefined ? [] : Array.isArray(options.cron) ? options.cron : [options.cron];
  const every = options.every === undefined ? undefined : typeof options.every === 'number' ? msText(options.every) : options.every;
  const spec = every !== undefined ? `every ${every}` : crons.map((c) => `cron ${c}`).join('; ');
  return [spec, options.timezone ? `(${options.timezone})` : '', options.jitter !== undefined ? `jitter ${String(options.jitter)}` : ''].filter(Boolean).join(' ');
}

function specText(spec: ScheduleDescription['spec'] | undefined): string {
  if (!spec) return '';
  const parts = [
    ...(spec.intervals ?? []).map((i) => `every ${msText(i.every)}`),
    ...(spec.calendars ?? []).map((c) => `cron ${c.comment ?? calendarText(c)}`),
  ];
  return parts.join('; ') || '(none)';
}

/** A calendar spec the server compiled a cron expression into, back as its five fields. */
function calendarText(c: NonNullable<ScheduleDescription['spec']['calendars']>[number]): string {
  const field = (ranges: Array<{ start: unknown; end: unknown; step: number }>, all: string) =>
    ranges.length === 0
      ? all
      : ranges.map((r) => `${String(r.start)}${r.end !== r.start ? `-${String(r.end)}` : ''}${r.step > 1 ? `/${r.step}` : ''}`).join(',');
  const dow = field(c.dayOfWeek, '*');
  return [field(c.minute, '*'), field(c.hour, '*'), field(c.dayOfMonth, '*'), field(c.month, '*'), dow].join(' ');
}

function msText(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1_000]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** What a schedule's listing and its description both show. */
function summaryOf(s: ScheduleSummary | ScheduleDescription): AgentScheduleSummary {
  return {
    name: s.scheduleId,
    spec: memoSpec(s.memo) ?? specText(s.spec),
    paused: s.state.paused,
    ...(s.state.note ? { note: s.state.note } : {}),
    nextRuns: s.info.nextActionTimes,
    recentRuns: s.info.recentActions.map(scheduledRun),
  };
}

const scheduledRun = (a: { scheduledAt: Date; takenAt: Date; action: { workflow: { workflowId: string } } }): ScheduledRun => ({
  workflowId: a.action.workflow.workflowId,
  scheduledAt: a.scheduledAt,
  startedAt: a.takenAt,
});
