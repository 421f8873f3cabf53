// `result` waits for a run; when no worker polls the run's task queue it says so (and keeps waiting) instead of
// seeming to hang, naming the commands that would make the run go on.
import { describe, expect, it } from 'vitest';
import { expectExit, useCli } from '../helpers/cli.js';

const cli = useCli();

describe('result', () => {
  it('says after a few seconds that no worker polls the task queue, with the commands that fix it, and keeps waiting', async () => {
    const s = cli.session();
    const id = await s.startedId(['what is 6 times 7']);
    const waiting = s.background(['result', id]);
    await waiting.waitForStderr(new RegExp(`no worker is polling task queue "${s.taskQueue}": the run waits on the server until one does`), 20_000);
    expect(waiting.stderr).toMatch(new RegExp(`durable-agent worker\\), or go on with a worker in this process \\(durable-agent run --id ${id}\\); still waiting`));
    expect(waiting.child.exitCode).toBeNull(); // still waiting
    const worker = await s.worker([{ content: [{ type: 'text', text: '42' }], stop_reason: 'end_turn' }]);
    try {
      const exit = await waiting.exited;
      expectExit(exit, 0);
      expect(exit.stdout).toContain('42');
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  });
});
