// `start --tasks FILE.jsonl`, `list --batch` and `result --batch`: the CLI against the test's dev server, a scripted
// worker running the runs.
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it, vi } from 'vitest';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { AgentResult, AgentInput } from '../../src/core/types.js';
import { listRuns, resumeAgent, type RunSummary } from '../../src/client/index.js';
import { taskWorkflowIds } from '../../src/client/task-file.js';
import { canonicalJson } from '../../src/core/canonical.js';
import { expectExit, expectUsageError, jsonOf, useCli } from '../helpers/cli.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';

const cli = useCli();
// The runs' worker is in the test process, on the session's task queue (a spawned worker costs seconds of CPU).
const env = useTestEnv();
const answering = (answer: string) => [reply([text(answer)])];

async function taskFile(name: string, lines: string[]): Promise<string> {
  const file = path.join(tmpdir(), `${name}.jsonl`);
  await writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

const countBatch = (batch: string) => cli.client().workflow.count(`AgentTaskBatch = '${batch}'`).then((c) => c.count);

interface Started {
  batch: string;
  runs: Array<{ line: number; workflowId: string; attached: boolean }>;
}

describe.concurrent('start --tasks (many runs from a JSON Lines file)', { timeout: 180_000 }, () => {
  it('a file of 10 lines started twice: 10 runs, not 20 (the second start attaches to each); list --batch and result --batch follow them', async ({ expect }) => {
    const s = cli.session();
    const batch = `ten-${randomUUID().slice(0, 8)}`;
    const lines = Array.from({ length: 10 }, (_, i) => JSON.stringify({ task: `Classify document ${i + 1}`, ...(i === 2 ? { maxSteps: 4 } : {}) }));
    const file = await taskFile(batch, lines);
    try {
      await withAgent(env, { script: answering('classified'), taskQueue: s.taskQueue }, async () => {
        const first = await s.cli(['start', '--tasks', file, '--max-steps', '7', '--json']);
        expectExit(first, 0);
        const started = jsonOf<Started>(first);
        expect(started.batch).toBe(batch);
        expect(started.runs.map((r) => r.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        expect(started.runs.every((r) => !r.attached)).toBe(true);
        expect(new Set(started.runs.map((r) => r.workflowId)).size).toBe(10);
        expect(first.stderr).toMatch(new RegExp(`batch ${batch}: 10 runs started, 0 already there`));

        const again = await s.cli(['start', '--tasks', file, '--max-steps', '7']);
        expectExit(again, 0);
        // The same ids (one a line, as each start answers), each attached to the run the first start made.
        expect(again.stdout.trim().split('\n').sort()).toEqual(started.runs.map((r) => r.workflowId).sort());
        expect(again.stderr).toMatch(new RegExp(`batch ${batch}: 0 runs started, 10 already there`));
        expect(await countBatch(batch)).toBe(10);

        // A line's own settings win over the command line's, which apply to the others.
        const inputOf = async (id: string) => {
          const history = await cli.client().workflow.getHandle(id).fetchHistory();
          const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
          return cli.client().options.loadedDataConverter.payloadConverter.fromPayload<AgentInput>(payload);
        };
        expect((await inputOf(started.runs[2].workflowId)).settings.maxSteps).toBe(4);
        expect((await inputOf(started.runs[0].workflowId)).settings.maxSteps).toBe(7);

        const results = await s.cli(['result', '--batch', batch, '--json']);
        expectExit(results, 0);
        const all = jsonOf<AgentResult[]>(results);
        expect(all).toHaveLength(10);
        expect(all.every((r) => r.status === 'completed' && r.text === 'classified')).toBe(true);
        expect(all.map((r) => r.workflowId).sort()).toEqual(started.runs.map((r) => r.workflowId).sort());
        const human = await s.cli(['result', '--batch', batch]);
        expect(human.stdout).toMatch(/— 10 of 10 completed\n$/);

        await vi.waitFor(
          async () => {
            const listed = await listRuns(cli.client(), { batch });
            expect(listed).toHaveLength(10);
            expect(listed.every((r) => r.taskBatch === batch && r.attributes.status === 'completed')).toBe(true);
          },
          { timeout: 60_000, interval: 500 },
        );
        const listed = jsonOf<RunSummary[]>(await s.cli(['list', '--batch', batch, '--json']));
        expect(listed.map((r) => r.workflowId).sort()).toEqual(started.runs.map((r) => r.workflowId).sort());
        expect((await s.cli(['list', '--batch', batch])).stdout).toMatch(/BATCH/);
      });
    } finally {
    }
  });

  it('a batch\'s run stopped by its step cap and resumed stays in the batch: list --batch and result --batch follow the resumed run', async ({ expect }) => {
    const s = cli.session();
    const batch = `resumed-${randomUUID().slice(0, 8)}`;
    // The second line's run asks for a tool at its first step, and may take one step: it stops by its step cap.
    const file = await taskFile(batch, [JSON.stringify({ task: 'Classify document 1' }), JSON.stringify({ task: 'Add 2 and 3', maxSteps: 1 })]);
    const script: Script = (req) =>
      JSON.stringify(req.messages).includes('Add 2 and 3') && !JSON.stringify(req.messages).includes('tool_result')
        ? reply([toolUse('calculator', { expression: '2+3' })])
        : reply([text('done')]);
    await withAgent(env, { script, taskQueue: s.taskQueue }, async () => {
      const started = jsonOf<Started>(await s.cli(['start', '--tasks', file, '--tools', 'calculator', '--json']));
      const [, stopped] = started.runs.map((r) => r.workflowId);
      await vi.waitFor(async () => expect((await cli.client().workflow.getHandle(stopped).describe()).status.name).toBe('COMPLETED'), { timeout: 60_000, interval: 200 });
      // From the library (the CLI's `resume` brings a worker of its own; this test's worker is already up).
      await resumeAgent(cli.client(), stopped, { moreSteps: 5, taskQueue: s.taskQueue });

      const results = jsonOf<AgentResult[]>(await s.cli(['result', '--batch', batch, '--json']));
      expect(results.map((r) => [r.workflowId, r.status]).sort()).toEqual(started.runs.map((r) => [r.workflowId, 'completed']).sort());
      expect(results.find((r) => r.workflowId === stopped)?.resumedFrom?.workflowId).toBe(stopped);
      await vi.waitFor(
        async () => {
          // Each id's current run (the stopped one is listed too, as an earlier run of its id).
          const listed = jsonOf<RunSummary[]>(await s.cli(['list', '--batch', batch, '--json'])).filter((r) => r.current);
          expect(listed.map((r) => [r.workflowId, r.attributes.status]).sort()).toEqual(started.runs.map((r) => [r.workflowId, 'completed']).sort());
        },
        { timeout: 60_000, interval: 500 },
      );
    });
  });

  it('--concurrency 2: no more than 2 of the file\'s runs are ever open at once (from the start and close times the server recorded)', async ({ expect }) => {
    const s = cli.session();
    const batch = `two-at-a-time-${randomUUID().slice(0, 8)}`;
    const file = await taskFile(batch, Array.from({ length: 5 }, (_, i) => JSON.stringify({ task: `Summarise chapter ${i + 1}` })));
    try {
      await withAgent(env, { script: answering('summarised'), taskQueue: s.taskQueue }, async () => {
        const exit = await s.cli(['start', '--tasks', file, '--concurrency', '2', '--json']);
        expectExit(exit, 0);
        expect(jsonOf<Started>(exit).runs).toHaveLength(5);
        // The command returns once the last one has started; the runs end by themselves.
        const describeAll = () => Promise.all(jsonOf<Started>(exit).runs.map((r) => cli.client().workflow.getHandle(r.workflowId).describe()));
        let runs = await describeAll();
        await vi.waitFor(async () => expect((runs = await describeAll()).every((r) => r.closeTime)).toBe(true), { timeout: 120_000, interval: 500 });
        const edges = runs.flatMap((r) => [
          { at: r.startTime.getTime(), open: 1 },
          { at: r.closeTime!.getTime(), open: -1 },
        ]);
        // Closes before starts at the same instant: a run started as another ended did not overlap it.
        edges.sort((a, b) => a.at - b.at || a.open - b.open);
        let open = 0;
        let most = 0;
        for (const e of edges) most = Math.max(most, (open += e.open));
        expect(most).toBe(2);
      });
    } finally {
    }
  });

  it('--concurrency with no worker on the queue says so while it waits for the first runs to end, not only after', async ({ expect }) => {
    const s = cli.session(); // its own task queue: no worker polls it
    const batch = `noworker-${randomUUID().slice(0, 8)}`;
    const file = await taskFile(batch, ['{"task": "one"}', '{"task": "two"}']);
    const command = s.background(['start', '--tasks', file, '--concurrency', '1', '--tools', 'calculator']);
    const [first] = taskWorkflowIds(batch, [{ task: 'one', settings: undefined as never, key: canonicalJson({ task: 'one' }) }]);
    try {
      await command.waitForStdout(new RegExp(`^${first}$`, 'm'));
      // The second line waits for the first run to end, which needs a worker: the command says there is none.
      await command.waitForStderr(new RegExp(`warning: no worker has polled task queue "${s.taskQueue}" recently`));
      expect(command.stdout.trim().split('\n')).toEqual([first]);
    } finally {
      // Ending the first run lets the second start: the command then ends.
      await cli.client().workflow.getHandle(first).terminate('test over').catch(() => undefined);
      await command.waitForStdout(/\n.+\n/).catch(() => undefined);
      const second = command.stdout.trim().split('\n')[1];
      if (second) await cli.client().workflow.getHandle(second).terminate('test over').catch(() => undefined);
      await command.exited;
    }
  });

  it('a file whose line 4 is bad: exit 2 naming line 4 (and each other bad line), and no run of the file is started', async ({ expect }) => {
    const s = cli.session();
    const batch = `bad-${randomUUID().slice(0, 8)}`;
    const bodies: unknown[] = [{ task: 'one' }, { task: 'two' }, { task: 'three' }, { task: 'four', maxSteps: 0 }, { task: 'five' }];
    const file = await taskFile(batch, bodies.map((b) => JSON.stringify(b)));
    const exit = await s.cli(['start', '--tasks', file, '--tools', 'calculator']);
    expectUsageError(exit, /has a bad line; nothing was started:\nline 4: maxSteps must be at least 1 \(got 0\)/);
    // None of the good lines' runs exists: their ids (derived from the line) name no run.
    const ids = taskWorkflowIds(batch, bodies.map((b) => ({ task: (b as { task: string }).task, settings: undefined as never, key: canonicalJson(b) })));
    for (const id of ids) await expect(cli.client().workflow.getHandle(id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect(await countBatch(batch)).toBe(0);

    // Every bad line is named, whatever is wrong with it.
    const worse = await taskFile(`worse-${randomUUID().slice(0, 8)}`, ['{"task": "fine"}', '{"task": "x", "maxStep": 3}', 'not json', '{"id": "no-task"}', '', '{"task": "y", "maxSteps": 0}']);
    const many = await s.cli(['start', '--tasks', worse, '--tools', 'calculator']);
    expectExit(many, 2);
    expect(many.stderr).toMatch(/line 2: unknown field "maxStep" \(did you mean "maxSteps"\?\)/);
    expect(many.stderr).toMatch(/line 3: not a JSON object/);
    expect(many.stderr).toMatch(/line 4: task: a non-empty string is required/);
    // A settings problem is named with them, in the order of the file.
    expect(many.stderr).toMatch(/has 4 bad lines; nothing was started:\nline 2: .*\nline 3: .*\nline 4: .*\nline 6: maxSteps must be at least 1 \(got 0\)/);
    expect(many.stdout).toBe('');
  });

  it('bad flags with --tasks are exit 2: a task argument, --id, --concurrency without --tasks, an unreadable file, an unusable batch name', async ({ expect }) => {
    const s = cli.session();
    const file = await taskFile(`flags-${randomUUID().slice(0, 8)}`, ['{"task": "one"}']);
    expectUsageError(await s.cli(['start', '--tasks', file, 'a task']), /give no task argument/);
    expectUsageError(await s.cli(['start', '--tasks', file, '--id', 'x']), /--id names one run/);
    expectUsageError(await s.cli(['start', '--concurrency', '3', 'a task']), /--concurrency goes with --tasks FILE/);
    expectUsageError(await s.cli(['start', '--tasks', '/nonexistent/tasks.jsonl']), /--tasks: cannot read \/nonexistent\/tasks.jsonl: ENOENT/);
    expectUsageError(await s.cli(['start', '--tasks', file, '--tasks-name', 'no spaces please']), /--tasks-name: the batch name "no spaces please" is not usable/);
    const empty = await taskFile(`empty-${randomUUID().slice(0, 8)}`, ['']);
    expectUsageError(await s.cli(['start', '--tasks', empty]), /holds no task/);
  });
});
