// `worker`'s sizing flags: a bad value, or a combination Temporal does not allow, is one line on stderr and exit 2
// before anything starts (the server address given does not even answer); good values reach the Worker, which
// says what it runs with, and it runs an agent to the end.
import { describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/devserver/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { expectExit, expectUsageError, jsonOf, useCli } from '../helpers/cli.js';

const { session, scriptFile } = useCli();

describe('worker sizing flags', () => {
  it('a bad value or a combination Temporal refuses is one line naming the flag and the fix, exit 2, before connecting', async () => {
    // Nothing listens here: a check that came after connecting would fail on the address instead.
    const { cli } = session({ TEMPORAL_ADDRESS: `127.0.0.1:${await findFreePort()}` });
    const cases: Array<[string[], RegExp]> = [
      [['--max-cached-workflows', '1'], /^error: --max-cached-workflows must be 0 \(no cache\) or at least 2 \(got 1\)$/m],
      [['--max-cached-workflows', 'lots'], /^error: --max-cached-workflows must be a whole number \(got "lots"\)$/m],
      [['--max-workflow-tasks', '1'], /^error: --max-workflow-tasks must be at least 2 \(got 1\)$/m],
      [
        ['--max-cached-workflows', '100', '--max-workflow-tasks', '300'],
        /^error: --max-workflow-tasks \(300\) cannot exceed --max-cached-workflows \(100\): a workflow task needs its run in the cache; raise --max-cached-workflows or lower --max-workflow-tasks$/m,
      ],
      [['--max-workflow-tasks', '99999'], /^error: --max-workflow-tasks \(99999\) cannot exceed --max-cached-workflows \(\d+, the default\)/m],
      [['--workflow-pollers', 'many'], /^error: --workflow-pollers must be a whole number or auto \(got "many"\)$/m],
      [['--workflow-pollers', '1'], /^error: --workflow-pollers must be at least 2 \(got 1\)$/m],
      [['--workflow-pollers', '30', '--max-workflow-tasks', '20'], /^error: --workflow-pollers \(30\) cannot exceed --max-workflow-tasks \(20\): a poll needs a free slot/m],
      [['--activity-pollers', '0'], /^error: --activity-pollers must be at least 1 \(got 0\)$/m],
      [['--max-activities', '0'], /^error: --max-activities must be at least 1 \(got 0\)$/m],
      [['--max-activities', '2.5'], /^error: --max-activities must be a whole number \(got "2.5"\)$/m],
    ];
    const exits = await Promise.all(cases.map(([flags]) => cli(['worker', '--scripted', ...flags])));
    exits.forEach((exit, i) => {
      expectUsageError(exit, cases[i][1]);
      expect(exit.stderr.trim().split('\n'), `worker ${cases[i][0].join(' ')}`).toHaveLength(1);
    });
  });

  it('the sizing flags reach the worker: it says what it runs with, and runs an agent to the end', async () => {
    const { spawn, taskQueue, cli } = session();
    const script = await scriptFile([reply([toolUse('calculator', { expression: '6*7' })]), reply([text('It is 42.')])]);
    const worker = spawn(
      ['worker', '--scripted', '--max-cached-workflows', '50', '--max-workflow-tasks', '20', '--workflow-pollers', 'auto', '--activity-pollers', '4', '--max-activities', '7'],
      { AGENT_SCRIPT: script },
    );
    try {
      await worker.waitForStderr(new RegExp(`worker polling task queue "${taskQueue}"`));
      await worker.waitForStderr(
        /worker sizing: cache 50 runs, 20 workflow tasks, workflow pollers auto \(1-100\), activity pollers 4, 7 activities/,
      );
      const run = await cli(['start', '--json', '--tools', 'calculator', 'What is 6*7?']);
      expectExit(run, 0);
      const result = await cli(['result', '--json', jsonOf<{ workflowId: string }>(run).workflowId]);
      expectExit(result, 0);
      expect(jsonOf(result)).toMatchObject({ status: 'completed', text: 'It is 42.', toolCalls: 1 });
    } finally {
      worker.kill('SIGTERM');
      expectExit(await worker.exited, 0);
    }
  });
});
