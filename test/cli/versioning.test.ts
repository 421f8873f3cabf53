// The built CLI with Worker Versioning and priorities: `worker --deployment NAME --build-id ID`, `start --priority
// --fairness-key`, `list` showing each run's build id; and their bad values, one line and exit 2.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectExit, expectUsageError, endTurn, jsonOf, stopWorker, until, useCli, type CliProcess } from '../helpers/cli.js';
import { setCurrentVersion } from '../helpers/deployments.js';
import type { RunSummary } from '../../src/client/index.js';

const { client, session, scriptFile } = useCli();

describe('worker --deployment, start --priority (the built CLI)', { timeout: 120_000 }, () => {
  it('refuses half a deployment, an unknown versioning, and priorities 0, 6 and "high": one line, exit 2', async () => {
    const s = session();
    const cases: Array<[string[], RegExp]> = [
      [['worker', '--build-id', 'v1'], /--build-id needs --deployment NAME/],
      [['worker', '--deployment', 'agents'], /--deployment needs --build-id ID/],
      [['worker', '--versioning', 'pinned'], /--versioning needs --deployment NAME and --build-id ID/],
      [['worker', '--deployment', 'agents', '--build-id', 'v1', '--versioning', 'sticky'], /--versioning must be one of pinned, auto-upgrade/],
      [['worker', '--deployment', 'my agents', '--build-id', 'v1'], /deployment name "my agents" has whitespace/],
      [['start', 'a task', '--priority', '0'], /--priority must be at least 1 \(got 0\)/],
      [['start', 'a task', '--priority', '6'], /--priority must be at most 5 \(got 6\)/],
      [['start', 'a task', '--priority', 'high'], /--priority must be a whole number \(got "high"\)/],
      [['run', 'a task', '--priority', 'high'], /--priority must be a whole number/],
      [['start', 'a task', '--fairness-weight', '2'], /--fairness-weight needs --fairness-key \(the key it weighs\)/],
      [['start', 'a task', '--fairness-key', 'k'.repeat(65)], /--fairness-key is 65 bytes long: at most 64/],
    ];
    const exits = await Promise.all(cases.map(([args]) => s.cli(args)));
    exits.forEach((exit, i) => {
      expectUsageError(exit, cases[i][1]);
      expect(exit.stderr.trim().split('\n'), cases[i][0].join(' ')).toHaveLength(1);
    });
  });

  it('a versioned worker runs a prioritised run; list shows its build id', async () => {
    const s = session();
    const deployment = `cli-${randomUUID().slice(0, 8)}`;
    let worker: CliProcess | undefined;
    try {
      worker = s.spawn(['worker', '--scripted', '--deployment', deployment, '--build-id', 'b1'], { AGENT_SCRIPT: await scriptFile([endTurn('done on b1')]) });
      await worker.waitForStderr(new RegExp(`worker deployment "${deployment}", build id "b1" \\(pinned runs\\)`));
      await setCurrentVersion(client(), deployment, 'b1');
      const id = await s.startedId(['a versioned task', '--priority', '1', '--fairness-key', 'tenant-a']);
      expectExit(await s.cli(['result', id]), 0);
      const started = (await client().workflow.getHandle(id).fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
      expect(started?.priority).toMatchObject({ priorityKey: 1, fairnessKey: 'tenant-a' });
      await until(async () => {
        const runs = jsonOf<RunSummary[]>(await s.cli(['list', '--limit', '1000', '--json']));
        return runs.some((r) => r.workflowId === id && r.buildId === 'b1');
      }, 'list --json gives the run its build id');
      const text = (await s.cli(['list', '--limit', '1000'])).stdout.split('\n');
      expect(text[0]).toMatch(/STARTED +BUILD ID/);
      // (a PARENT column may follow: the shared server holds other tests' sub-agent runs)
      expect(text.find((l) => l.startsWith(id))).toMatch(/ b1( |$)/);
    } finally {
      await stopWorker(worker);
    }
  });
});
