// Reading a run by replay installs a quiet Temporal runtime only in a process that has none: never over the process's
// own, even after the SDK shut that one down because its last worker and connection had closed. Each case runs in a
// child process, since a runtime is global to its process.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const run = promisify(execFile);

async function loggerAfterReplaySetup(before: string): Promise<string> {
  const script = `
    import { DefaultLogger, Runtime } from '@temporalio/worker';
    import { ensureQuietRuntime } from './dist/client/replay.js';
    const own = new DefaultLogger('DEBUG', () => {});
    ${before}
    await ensureQuietRuntime();
    const logger = Runtime.instance().logger;
    console.log(logger === own ? 'own' : logger instanceof DefaultLogger ? 'quiet:' + logger.level : 'other');`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  return stdout.trim();
}

describe('the runtime a replay uses', () => {
  it('is a quiet one (warnings only) in a process that has none', async () => {
    expect(await loggerAfterReplaySetup('')).toBe('quiet:WARN');
  });

  it("is the process's own, installed before", async () => {
    expect(await loggerAfterReplaySetup('Runtime.install({ logger: own });')).toBe('own');
  });

  it("is the process's own after the SDK shut it down idle (it makes it again with the same options)", async () => {
    // What the SDK does when the last worker or connection closes.
    expect(await loggerAfterReplaySetup('Runtime.install({ logger: own }); await Runtime.instance().shutdown();')).toBe('own');
  });
});
