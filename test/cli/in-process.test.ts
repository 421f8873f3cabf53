// The test helper that runs the CLI's commands in the test process (test/helpers/cli-in-process.ts): what a command
// would do to its own process must stay within the command there.
import { describe, expect, it } from 'vitest';
import { ROOT, expectExit, useCli } from '../helpers/cli.js';
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
