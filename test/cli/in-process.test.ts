// The test helper that runs the CLI's commands in the test process (test/helpers/cli-in-process.ts): what a command
// would do to its own process must stay within the command there.
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/core/types.js';
import { NativeConnection } from '@temporalio/worker';
import { ROOT, endTurn, expectExit, jsonOf, stopWorker, useCli, type CliProcess } from '../helpers/cli.js';
import { startCliInProcess } from '../helpers/cli-in-process.js';
import { testServerAddress } from '../helpers/test-server.js';

const cli = useCli();

describe('a command in the test process', () => {
  it('that calls process.exit (result stopped by SIGTERM: exit 130) ends with that code, and the test process goes on', async () => {
    const s = cli.session();
    const id = await s.startedId(['wait for a worker that never comes']);
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, TEMPORAL_ADDRESS: testServerAddress(), AGENT_TASK_QUEUE: s.taskQueue, NO_COLOR: '1' };
    const waiting = startCliInProcess(['result', id], { env, timeoutMs: 40_000, cwd: ROOT });
    await waiting.waitForStderr(/is running: waiting for it to end/);
    waiting.kill('SIGTERM');
    const exit = await waiting.exited;
    expectExit(exit, 130);
    expect(exit.stderr).toContain(`stopped waiting (SIGTERM): run ${id} goes on on the server`);
    // Still here, and process.exit is the process's again outside a command.
    expect(process.exitCode ?? 0).toBe(0);
    await cli.client().workflow.getHandle(id).terminate('test cleanup');
  });

  it("stopping a worker in the test process leaves the process's Temporal runtime running: a worker started after it runs a run to its end", async () => {
    // The SDK's runtime goes when its last worker and connection do and comes back at the next use: here inside the
    // first worker's command (nothing else of this file holds it). A connection of the test's keeps that runtime
    // alive past the command, whose stop must not reach the runtime's own SIGINT/SIGTERM listeners: they would shut
    // down every later worker of the process at once.
    const first = cli.session();
    const stopped = await first.worker([endTurn('never asked')]);
    const connection = await NativeConnection.connect({ address: testServerAddress() });
    let worker: CliProcess | undefined;
    try {
      stopped.kill('SIGINT');
      expectExit(await stopped.exited, 0);

      const s = cli.session();
      worker = await s.worker([endTurn('still served')]);
      const id = await s.startedId(['a run after a stopped worker']);
      const result = await s.cli(['result', id, '--json']);
      expectExit(result, 0);
      expect(jsonOf<AgentResult>(result).text).toBe('still served');
    } finally {
      await stopWorker(worker);
      await connection.close();
    }
  });

  it("gives a command its own environment even after a test replaced process.env with a copy of it", async () => {
    const before = process.env;
    process.env = { ...before };
    try {
      const s = cli.session();
      // start reaches the test server only with the session's TEMPORAL_ADDRESS (the test process has none).
      const id = await s.startedId(['after process.env was replaced']);
      const status = await s.cli(['status', id], { TEMPORAL_NAMESPACE: 'no-such-namespace' });
      expect(status.stderr).toMatch(/no-such-namespace/);
      await cli.client().workflow.getHandle(id).terminate('test cleanup');
    } finally {
      process.env = before;
    }
  });

  it("keeps a command's environment, stdout and stderr its own while another runs beside it", async () => {
    const s = cli.session();
    const [a, b] = await Promise.all([s.cli(['status', 'no-such-run-a']), s.cli(['status', 'no-such-run-b'], { TEMPORAL_NAMESPACE: 'no-such-namespace' })]);
    expect(a.stderr).toMatch(/no-such-run-a/);
    expect(a.stderr).not.toMatch(/no-such-run-b|no-such-namespace/);
    expect(b.stderr).toMatch(/no-such-namespace/);
    expect(b.stderr).not.toMatch(/no-such-run-a/);
    expect(process.env.TEMPORAL_NAMESPACE).toBeUndefined();
  });
});
