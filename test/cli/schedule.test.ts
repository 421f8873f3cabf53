// `schedule create|list|describe|pause|unpause|trigger|delete` and `list --schedule`: the CLI against the test's dev
// server (Temporal Schedules as the server runs them), a scripted worker running the runs each firing starts.
import { randomUUID } from 'node:crypto';
import { describe, it, vi } from 'vitest';
import type { AgentScheduleDescription, AgentScheduleSummary } from '../../src/client/schedules.js';
import { formatSchedule } from '../../src/cli/commands/schedule.js';
import { listRuns, type RunSummary } from '../../src/client/index.js';
import type { AgentInput } from '../../src/core/types.js';
import { expectExit, expectUsageError, jsonOf, useCli } from '../helpers/cli.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';
import { reply, text } from '../../src/scripted/index.js';

const cli = useCli();
// The runs' worker is in the test process, on the session's task queue (a spawned worker costs seconds of CPU).
const env = useTestEnv();
const answering = (answer: string) => [reply([text(answer)])];

/** Polls go through the client API (a CLI process per poll costs a second of CPU); what is asserted at the end
 * goes through the CLI. */
const runsOf = (schedule: string) => listRuns(cli.client(), { schedule, limit: 1000 });

/** The server runs each schedule as a workflow of its own (Temporal's scheduler, `temporal-sys-scheduler:<id>`):
 * its status says whether anything can still fire. */
const schedulerOf = (name: string) => cli.client().workflow.getHandle(`temporal-sys-scheduler:${name}`);

describe.concurrent('schedule (Temporal Schedules from the CLI)', { timeout: 180_000 }, () => {
  it('a schedule --every 5s starts a run at each firing, each found by list --schedule; after delete its scheduler is closed and no run is added', async ({ expect }) => {
    const s = cli.session();
    const name = `every-5s-${randomUUID().slice(0, 8)}`;
    try {
      await withAgent(env, { script: answering('the nightly report is done'), taskQueue: s.taskQueue }, async () => {
        const created = await s.cli(['schedule', 'create', name, '--every', '5s', '--max-steps', '3', 'Write the nightly report']);
        expectExit(created, 0);
        expect(created.stdout).toBe(`${name}\n`);
        expect(created.stderr).toMatch(new RegExp(`schedule ${name} created: every 5s; next run .*list --schedule ${name}`));

        // Two firings, each an ordinary run that completes, found by the schedule's name.
        let runs: RunSummary[] = [];
        await vi.waitFor(
          async () => {
            runs = (await runsOf(name)).filter((r) => r.attributes.status === 'completed');
            expect(runs.length).toBeGreaterThanOrEqual(2);
          },
          { timeout: 150_000, interval: 1_000 },
        );
        for (const r of runs) {
          expect(r.schedule).toBe(name);
          expect(r.workflowId).toMatch(new RegExp(`^${name}-\\d{4}-\\d\\d-\\d\\dT`));
        }
        const listedByCli = jsonOf<RunSummary[]>(await s.cli(['list', '--schedule', name, '--json']));
        expect(listedByCli.map((r) => r.workflowId)).toEqual(expect.arrayContaining(runs.map((r) => r.workflowId)));
        const table = await s.cli(['list', '--schedule', name]);
        expect(table.stdout).toMatch(/SCHEDULE/);
        expect(table.stdout).toContain(runs[0].workflowId);
        // The task and settings are stored once, in the schedule, and each run starts with them.
        const described = jsonOf<AgentScheduleDescription>(await s.cli(['schedule', 'describe', name, '--json']));
        expect(described.task).toBe('Write the nightly report');
        expect(described.settings.maxSteps).toBe(3);
        expect(described.spec).toBe('every 5s');
        expect(described.overlap).toBe('skip');
        expect(described.runsStarted).toBeGreaterThanOrEqual(2);
        const history = await cli.client().workflow.getHandle(runs[0].workflowId).fetchHistory();
        const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
        const input = cli.client().options.loadedDataConverter.payloadConverter.fromPayload<AgentInput>(payload);
        expect(input.task).toBe('Write the nightly report');
        expect(input.settings.maxSteps).toBe(3);
        const listed = jsonOf<AgentScheduleSummary[]>(await s.cli(['schedule', 'list', '--json']));
        expect(listed.find((x) => x.name === name)).toMatchObject({ spec: 'every 5s', paused: false });

        expectExit(await s.cli(['schedule', 'delete', name]), 0);
        // The scheduler workflow ended with the delete: nothing is left to fire.
        await vi.waitFor(async () => expect((await schedulerOf(name).describe()).status.name).not.toBe('RUNNING'), { timeout: 30_000, interval: 500 });
        expectUsageError(await s.cli(['schedule', 'describe', name]), new RegExp(`no schedule named "${name}"`));
        // What it started before the delete, once every one of them has ended ...
        let before: string[] = [];
        await vi.waitFor(
          async () => {
            const all = await runsOf(name);
            expect(all.filter((r) => r.executionStatus === 'RUNNING').map((r) => r.workflowId)).toEqual([]);
            before = all.map((r) => r.workflowId).sort();
          },
          { timeout: 150_000, interval: 1_000 },
        );
        // ... is all it ever started: its scheduler's history ends with the delete (terminated), and the list is the same.
        const events = (await schedulerOf(name).fetchHistory()).events!;
        expect(events.at(-1)!.workflowExecutionTerminatedEventAttributes).toBeTruthy();
        const after = jsonOf<RunSummary[]>(await s.cli(['list', '--schedule', name, '--json'])).map((r) => r.workflowId).sort();
        expect(after).toEqual(before);
        expect(after.length).toBeGreaterThanOrEqual(2);
      });
    } finally {
      await cli.client().schedule.getHandle(name).delete().catch(() => undefined);
    }
  });

  it('pause, unpause and trigger: a paused schedule fires only when triggered, and describe says what it did', async ({ expect }) => {
    const s = cli.session();
    const name = `paused-${randomUUID().slice(0, 8)}`;
    try {
      await withAgent(env, { script: answering('weekly digest sent'), taskQueue: s.taskQueue }, async () => {
        // Once a year, paused: nothing fires on its own during the test.
        expectExit(await s.cli(['schedule', 'create', name, '--cron', '0 9 1 1 *', '--paused', '--note', 'waiting for launch', 'Send the weekly digest']), 0);
        let d = jsonOf<AgentScheduleDescription>(await s.cli(['schedule', 'describe', name, '--json']));
        expect(d).toMatchObject({ paused: true, note: 'waiting for launch', spec: 'cron 0 9 1 1 *', runsStarted: 0 });
        expectExit(await s.cli(['schedule', 'trigger', name]), 0);
        await vi.waitFor(
          async () => {
            const runs = await runsOf(name);
            expect(runs.map((r) => r.attributes.status)).toEqual(['completed']);
          },
          { timeout: 150_000, interval: 1_000 },
        );
        expectExit(await s.cli(['schedule', 'unpause', name]), 0);
        d = jsonOf<AgentScheduleDescription>(await s.cli(['schedule', 'describe', name, '--json']));
        expect(d.paused).toBe(false);
        expect(d.runsStarted).toBe(1);
        expect(d.recentRuns).toHaveLength(1);
        expectExit(await s.cli(['schedule', 'pause', name, '--note', 'freeze']), 0);
        d = jsonOf<AgentScheduleDescription>(await s.cli(['schedule', 'describe', name, '--json']));
        expect(d).toMatchObject({ paused: true, note: 'freeze' });
        const human = await s.cli(['schedule', 'describe', name]);
        expect(human.stdout).toMatch(new RegExp(`^${name} · cron 0 9 1 1 \\* · paused · freeze\\ntask: Send the weekly digest\\n`));
      });
    } finally {
      await cli.client().schedule.getHandle(name).delete().catch(() => undefined);
    }
  });

  it('bad input is exit 2 naming the problem, before anything is created', async ({ expect }) => {
    const s = cli.session();
    expectUsageError(await s.cli(['schedule', 'create', 'x', 'a task']), /give --cron EXPR or --every D \(exactly one\)/);
    expectUsageError(await s.cli(['schedule', 'create', 'x', '--every', '5s', '--cron', '* * * * *', 'a task']), /exactly one/);
    expectUsageError(await s.cli(['schedule', 'create', 'x', '--every', '90', 'a task']), /--every: invalid duration "90"/);
    expectUsageError(await s.cli(['schedule', 'create', 'x', '--every', '500ms', 'a task']), /--every must be at least 1000 ms/);
    expectUsageError(await s.cli(['schedule', 'create', 'x', '--cron', '0 9 *', 'a task']), /needs 5 fields/);
    expectUsageError(await s.cli(['schedule', 'create', 'x', '--cron', '0 0 2 * * *', 'a task']), /"0 0 2 \* \* \*" has 6 fields: it needs 5 fields/);
    expectUsageError(await s.cli(['schedule', 'create', 'bad name', '--every', '1h', 'a task']), /schedule name "bad name" is not usable/);
    expectUsageError(await s.cli(['schedule', 'create', 'x', '--every', '1h', '--max-steps', '0', 'a task']), /--max-steps must be at least 1/);
    expectUsageError(await s.cli(['schedule', 'create', 'x', '--every', '1h', '--priority', '1', 'a task']), /unknown option --priority/);
    expectUsageError(await s.cli(['schedule', 'create', 'x', '--every', '1h']), /missing task/);
    expectUsageError(await s.cli(['schedule', 'frobnicate']), /unknown action "frobnicate"/);
    expectUsageError(await s.cli(['schedule', 'list', '--every', '1h']), /--every does not go with schedule list/);
    expectUsageError(await s.cli(['schedule', 'delete', `never-made-${randomUUID().slice(0, 8)}`]), /no schedule named "never-made-/);
    const name = `twice-${randomUUID().slice(0, 8)}`;
    try {
      expectExit(await s.cli(['schedule', 'create', name, '--every', '1h', '--paused', 'a task']), 0);
      expectUsageError(await s.cli(['schedule', 'create', name, '--every', '1h', 'a task']), new RegExp(`a schedule named "${name}" already exists: delete it first`));
    } finally {
      await cli.client().schedule.getHandle(name).delete().catch(() => undefined);
    }
  });
});

describe('formatSchedule', () => {
  it("names a cron schedule's time zone once (the spec in words already carries it)", ({ expect }) => {
    const d = {
      name: 'nightly',
      spec: 'cron 0 2 * * * (Europe/Paris)',
      timezone: 'Europe/Paris',
      paused: false,
      nextRuns: [],
      recentRuns: [],
      task: 'Triage',
      settings: { model: 'claude-sonnet-5-5', maxSteps: 30, tools: [] },
      taskQueue: 'q',
      overlap: 'skip',
      catchupWindowMs: 60_000,
      jitterMs: 0,
      runsStarted: 0,
      skippedOverlap: 0,
      createdAt: new Date(0),
    } as unknown as AgentScheduleDescription;
    expect(formatSchedule(d).split('\n')[0]).toBe('nightly · cron 0 2 * * * (Europe/Paris) · active');
  });
});
