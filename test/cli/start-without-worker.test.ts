// `start` does not wait for its run, but says when nothing will run it: a warning on stderr when no worker has polled
// the run's task queue recently; a wait for a worker's answer is said, never silent (a worker that stopped is still
// remembered by the server for minutes); and with no worker to ask, a mistyped tool of a config's MCP server is
// exit 2 with the real name suggested (start lists that server's tools itself).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectExit, expectUsageError, stopWorker, useCli } from '../helpers/cli.js';
import { stdioFixture } from '../helpers/mcp.js';

const cli = useCli();

describe('start with no worker', { timeout: 120_000 }, () => {
  it('starts the run (exit 0, its id alone on stdout) and warns on stderr that no worker polls its queue', async () => {
    const s = cli.session();
    const exit = await s.cli(['start', '--tools', 'calculator', 'what is 6*7?']);
    expectExit(exit, 0);
    const id = exit.stdout.trim();
    expect(exit.stderr).toContain(`warning: no worker has polled task queue "${s.taskQueue}" recently: run ${id} waits on the server until one does`);
    expect(exit.stderr).toContain('Start one (durable-agent worker)');
    await cli.client().workflow.getHandle(id).terminate('test cleanup');
  });

  it('after its worker stopped, says what it waits for while it asks the queue what tools it offers, then warns', async () => {
    const s = cli.session();
    await stopWorker(await s.worker([{ content: [{ type: 'text', text: '42' }], stop_reason: 'end_turn' }]));
    const exit = await s.cli(['start', 'what is 6*7?']);
    expectExit(exit, 0);
    // Whether `start` asks the queue at all depends on whether the server still lists the stopped worker as a poller
    // (it forgets one after a while, sooner or later under load): when it asks, it says what it waits for.
    const waited = /waiting up to 10 s for a worker of task queue/.test(exit.stderr);
    if (waited) {
      expect(exit.stderr).toMatch(
        new RegExp(`waiting up to 10 s for a worker of task queue "${s.taskQueue}" to say what tools it offers \\(one last polled it \\d+ s ago: it may have stopped\\)`),
      );
    }
    expect(exit.stderr).toContain(`warning: no worker has polled task queue "${s.taskQueue}" recently`);
    await cli.client().workflow.getHandle(exit.stdout.trim()).terminate('test cleanup');
  });

  it('a mistyped tool of an MCP server in --config is exit 2 naming the real one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'start-mcp-'));
    const config = path.join(dir, 'kb.config.mjs');
    await writeFile(config, `export default ${JSON.stringify({ mcpServers: { kb: stdioFixture() } })};\n`);
    const s = cli.session();
    const exit = await s.cli(['start', '--tools', 'kb__ech', '--config', config, 'look it up']);
    expectUsageError(exit, /unknown tool "kb__ech" \(did you mean "kb__echo"\?\) in --tools/);
    expect(exit.stderr).toContain('no worker to ask: listing the tools of MCP server "kb" from --config here');
    // The exact name starts the run.
    const exact = await s.cli(['start', '--tools', 'kb__echo', '--config', config, 'look it up']);
    expectExit(exact, 0);
    await cli.client().workflow.getHandle(exact.stdout.trim()).terminate('test cleanup');
  });
});
