// `schedule create|list|describe|pause|unpause|trigger|delete`: recurring runs on Temporal Schedules
// (src/client/schedules.ts). `create` takes the flags of `start` (the run's settings, checked by the same function)
// and stores the task and settings once, in the schedule; each firing is an ordinary run, listed by
// `list --schedule NAME`.
import { UsageError, expectPositionals, type FlagSpec, type Parsed } from '../../core/args.js';
import type { AgentScheduleDescription, AgentScheduleSummary } from '../../client/schedules.js';
import { defineCommand } from '../command.js';
import { table, timeText } from '../format.js';
import { logLine } from '../log.js';
import { printJson, printText } from '../output.js';
import { START_FLAGS } from '../settings.js';
import { readTask } from '../task.js';
import { taskQueue } from '../task-queue.js';
import { withTemporal } from '../temporal.js';
import { OVERLAP_POLICIES, type OverlapPolicy } from '../../core/schedule-overlap.js';
import { startRunInput } from './start.js';

const USAGE =
  'schedule create <name> (--cron EXPR | --every D) [run options] "<task>" | schedule list | ' +
  'schedule describe|pause|unpause|trigger|delete <name>';

/** `start`'s flags, but --id (each firing's id is the schedule's name and time) and the priority flags (a 1.24
 * schedule's action has no priority). */
const { id: _id, priority: _p, 'fairness-key': _fk, 'fairness-weight': _fw, ...RUN_FLAGS } = START_FLAGS;

const SCHEDULE_FLAGS = {
  cron: { type: 'string', value: 'EXPR', help: 'create: a cron expression, quoted: "0 9 * * 1-5" (minute hour day-of-month month day-of-week)' },
  every: { type: 'string', value: 'D', help: 'create: an interval instead: 5s, 10m, 1h, 1d' },
  overlap: {
    type: 'string',
    choices: OVERLAP_POLICIES,
    value: 'POLICY',
    help: `create, trigger: what a firing does while the previous run still runs: ${OVERLAP_POLICIES.join(', ')} (default skip)`,
  },
  'catchup-window': { type: 'string', value: 'D', help: 'create: after a server outage, run the firings missed by at most D (default: 1 year)' },
  jitter: { type: 'string', value: 'D', help: 'create: delay each firing by a random time up to D' },
  timezone: { type: 'string', value: 'TZ', help: 'create: the time zone of the cron expressions (e.g. Europe/Paris; default UTC)' },
  paused: { type: 'boolean', help: 'create: create it paused (unpause starts it)' },
  note: { type: 'string', value: 'TEXT', help: 'create, pause, unpause: a note, shown by describe' },
  ...RUN_FLAGS,
} satisfies Record<string, FlagSpec>;

type Flags = Parsed<typeof SCHEDULE_FLAGS>['flags'];

/** Flags that only `create` takes. */
const CREATE_ONLY = new Set([...Object.keys(RUN_FLAGS), 'cron', 'every', 'catchup-window', 'jitter', 'timezone', 'paused'].filter((f) => f !== 'json' && f !== 'config'));

export const schedule = defineCommand({
  usage: USAGE,
  description: `Recurring runs on Temporal Schedules. create stores the task and the run's settings (the flags of
\`start\`) once in a schedule that starts an ordinary run at each firing: --cron (in --timezone, UTC by default) or
--every, with Temporal's overlap policy (skip by default: no firing while the last run still runs), catch-up window
and jitter. Each run's id is <name>-<time of the firing>; \`list --schedule NAME\` lists them. list shows the
agent's schedules, describe one (its task, settings, next firings, recent runs); pause and unpause stop and start
the firings; trigger starts a run now; delete removes the schedule (its runs are left as they are). No worker runs
in this process.`,
  flags: SCHEDULE_FLAGS,
  examples: [
    'schedule create nightly-triage --cron "0 2 * * *" --max-steps 30 "Triage the issues opened yesterday"',
    'schedule create heartbeat --every 1h --tools calculator --task-file check.md',
    'schedule list',
    'schedule describe nightly-triage --json',
    'schedule pause nightly-triage --note "release freeze"',
    'schedule trigger nightly-triage',
    'schedule delete nightly-triage',
  ],
  run: scheduleCommand,
});

async function scheduleCommand({ flags, positionals }: Parsed<typeof SCHEDULE_FLAGS>): Promise<number> {
  const [action, ...rest] = positionals;
  const actions = ['create', 'list', 'describe', 'pause', 'unpause', 'trigger', 'delete'];
  if (action === undefined || !actions.includes(action)) {
    throw new UsageError(`${action === undefined ? 'missing the action' : `unknown action "${action}"`}: give ${actions.join(', ')}\nusage: ${USAGE}`);
  }
  if (action !== 'create') {
    const misplaced = Object.keys(flags).find((f) => flags[f as keyof Flags] !== undefined && (CREATE_ONLY.has(f) || (f === 'overlap' && action !== 'trigger') || (f === 'note' && !['pause', 'unpause'].includes(action))));
    if (misplaced) throw new UsageError(`--${misplaced} does not go with schedule ${action} (it is for ${misplaced === 'note' ? 'create, pause and unpause' : misplaced === 'overlap' ? 'create and trigger' : 'create'})`);
  }
  if (action === 'create') return create(flags, rest);
  if (action === 'list') {
    expectPositionals(rest, [], 'schedule list [--json]');
    return withTemporal(async (temporal) => {
      const { listAgentSchedules } = await import('../../client/schedules.js');
      const schedules = await listAgentSchedules(temporal.client);
      if (flags.json) printJson(schedules);
      else if (schedules.length === 0) logLine('no schedules (schedule create makes one)');
      else printText(formatScheduleList(schedules));
      return 0;
    });
  }
  const [name] = expectPositionals(rest, ['name'], `schedule ${action} <name>`);
  return withTemporal(async (temporal) => {
    const s = await import('../../client/schedules.js');
    const client = temporal.client;
    switch (action) {
      case 'describe': {
        const d = await s.describeAgentSchedule(client, name);
        if (flags.json) printJson(d);
        else printText(formatSchedule(d));
        return 0;
      }
      case 'pause':
        await s.pauseAgentSchedule(client, name, flags.note);
        logLine(`schedule ${name} paused: no firing until \`schedule unpause ${name}\``);
        break;
      case 'unpause':
        await s.unpauseAgentSchedule(client, name, flags.note);
        logLine(`schedule ${name} unpaused`);
        break;
      case 'trigger':
        await s.triggerAgentSchedule(client, name, flags.overlap as OverlapPolicy | undefined);
        logLine(`schedule ${name} triggered: a run starts now (list --schedule ${name})`);
        break;
      case 'delete':
        await s.deleteAgentSchedule(client, name);
        logLine(`schedule ${name} deleted: it fires no more (its runs are left as they are: list --schedule ${name})`);
        break;
    }
    if (flags.json) printJson({ name, action });
    return 0;
  });
}

async function create(flags: Flags, rest: string[]): Promise<number> {
  const [name, ...taskWords] = rest;
  if (name === undefined) throw new UsageError(`missing the schedule's name\nusage: ${USAGE}`);
  const task = await readTask(taskWords, flags['task-file'], 'schedule create <name> (--cron EXPR | --every D) [run options] "<task>"');
  const s = await import('../../client/schedules.js');
  const spec = { cron: flags.cron, every: flags.every, jitter: flags.jitter, timezone: flags.timezone };
  try {
    s.checkScheduleName(name);
    s.scheduleSpec(spec); // --cron/--every/--jitter refused before any connection
  } catch (err) {
    throw new UsageError(asFlagWords((err as Error).message));
  }
  const runInput = await startRunInput(flags);
  return withTemporal(async (temporal) => {
    const { settings } = await runInput(temporal);
    try {
      await s.createAgentSchedule(temporal.client, {
        name,
        task,
        settings,
        ...spec,
        overlap: flags.overlap as OverlapPolicy | undefined,
        catchupWindow: flags['catchup-window'],
        paused: flags.paused,
        note: flags.note,
        taskQueue: taskQueue(),
      });
    } catch (err) {
      if (err instanceof s.InvalidScheduleError) throw new UsageError(asFlagWords(err.message));
      throw err;
    }
    const d = await s.describeAgentSchedule(temporal.client, name);
    const next = d.nextRuns[0] ? `; next run ${timeText(d.nextRuns[0])}` : '';
    logLine(`schedule ${name} created: ${d.spec}${d.paused ? ' (paused)' : ''}${next}. Its runs: list --schedule ${name}`);
    if (flags.json) printJson({ name });
    else printText(`${name}\n`);
    return 0;
  });
}

/** The library's words (`every`, `catchupWindow`) as the flags that set them. */
const asFlagWords = (message: string) =>
  message
    .replace(/^every\b/, '--every')
    .replace(/^jitter\b/, '--jitter')
    .replace(/^catchupWindow\b/, '--catchup-window')
    .replace('give either a cron expression or an interval (every), exactly one: e.g. cron "0 9 * * 1-5" or every "1h"', 'give --cron EXPR or --every D (exactly one), e.g. --cron "0 9 * * 1-5" or --every 1h');

export function formatScheduleList(schedules: readonly AgentScheduleSummary[]): string {
  const header = ['NAME', 'SPEC', 'STATE', 'NEXT RUN', 'LAST RUN'];
  const rows = schedules.map((s) => [
    s.name,
    s.spec,
    s.paused ? 'paused' : 'active',
    s.nextRuns[0] ? timeText(s.nextRuns[0]) : '—',
    s.recentRuns.at(-1)?.workflowId ?? '—',
  ]);
  return table(header, rows);
}

export function formatSchedule(d: AgentScheduleDescription): string {
  const lines = [
    // The spec in words carries the time zone already, unless the schedule was made elsewhere (no memo).
    `${d.name} · ${d.spec}${d.timezone && !d.spec.includes(`(${d.timezone})`) ? ` (${d.timezone})` : ''} · ${d.paused ? 'paused' : 'active'}${d.note ? ` · ${d.note}` : ''}`,
    `task: ${d.task}`,
    `model ${d.settings?.model ?? '?'} · max steps ${d.settings?.maxSteps ?? '?'} · tools ${d.settings?.tools?.join(', ') || '(none)'} · queue ${d.taskQueue}`,
    `overlap ${d.overlap} · catch-up window ${Math.round(d.catchupWindowMs / 1000)} s${d.jitterMs ? ` · jitter ${Math.round(d.jitterMs / 1000)} s` : ''}`,
    `runs started: ${d.runsStarted}${d.skippedOverlap ? ` (${d.skippedOverlap} firings skipped: the previous run was still running)` : ''}`,
    `next: ${d.nextRuns.slice(0, 3).map(timeText).join(', ') || '—'}`,
    ...(d.recentRuns.length > 0 ? ['recent runs:', ...d.recentRuns.map((r) => `  ${r.workflowId}  (started ${timeText(r.startedAt)})`)] : []),
  ];
  return `${lines.join('\n')}\n`;
}
