// Ctrl-C or SIGTERM ends a command that waits for a run (`result`, `watch`, `status`) at once, with exit 130
// ("detached": it stopped waiting, the run goes on), and says so on stderr with the command that waits again. With no
// worker the wait never ends by itself, so a command that ignored the signal would run into the test's timeout.
import { describe, expect, it } from 'vitest';
import { expectExit, useCli, type CliProcess } from '../helpers/cli.js';

const cli = useCli();

/** The process has stopped waiting: exit 130, nothing on stdout, what goes on and how to wait again on stderr. */
async function expectStoppedWaiting(waiting: CliProcess, signal: NodeJS.Signals, id: string, again: string): Promise<void> {
  waiting.kill(signal);
  const exit = await waiting.exited;
  expectExit(exit, 130);
  expect(exit.signal).toBeNull();
  expect(exit.stdout).toBe('');
  expect(exit.stderr).toContain(`stopped waiting (${signal}): run ${id} goes on on the server`);
  expect(exit.stderr).toContain(`durable-agent ${again} ${id}`);
}

describe('a signal ends a command waiting for a run, not the run', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`result with no worker, sent ${signal} while it waits, exits 130 and the run still runs`, async () => {
      const s = cli.session();
      const id = await s.startedId(['wait for a worker that never comes']);
      const waiting = s.spawn(['result', id], undefined, 40_000);
      await waiting.waitForStderr(/is running: waiting for it to end \(Ctrl-C stops waiting, not the run\)/);
      await expectStoppedWaiting(waiting, signal, id, 'result');
      const handle = cli.client().workflow.getHandle(id);
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await handle.terminate('test cleanup');
    });
  }

  it('result sent SIGINT while it reaches the server (before it waits) exits 130 as well', async () => {
    const s = cli.session();
    const id = await s.startedId(['wait for a worker that never comes']);
    const waiting = s.spawn(['result', id], { DURABLE_AGENT_PROFILE: '1' }, 40_000);
    // Probed, not yet connected: Temporal's runtime is installed, and with it its own SIGINT handler.
    await waiting.waitForStderr(/^profile probed /m);
    await expectStoppedWaiting(waiting, 'SIGINT', id, 'result');
    await cli.client().workflow.getHandle(id).terminate('test cleanup');
  });

  it('watch with no worker, sent SIGTERM while it follows the history, exits 130', async () => {
    const s = cli.session();
    const id = await s.startedId(['wait for a worker that never comes']);
    const waiting = s.spawn(['watch', id], undefined, 40_000);
    await waiting.waitForStderr(/waiting: .*Is a worker running on its task queue\?/);
    waiting.kill('SIGTERM');
    const exit = await waiting.exited;
    expectExit(exit, 130);
    expect(exit.stderr).toContain(`stopped waiting (SIGTERM): run ${id} goes on on the server`);
    expect(exit.stderr).toContain(`durable-agent watch ${id}`);
    await cli.client().workflow.getHandle(id).terminate('test cleanup');
  });
});
