// Long-running tools from the CLI: a tool's progress in `status` (text and --json) while it runs, an outside
// completion given with `complete-tool`, and every bad policy refused with exit 2 when the tool is loaded.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endTurn, expectExit, expectUsageError, jsonOf, stopWorker, until, useCli, type CliProcess } from '../helpers/cli.js';

const LONG_TOOLS = 'test/fixtures/config/long-tools.config.mjs';
const { session, scriptFile } = useCli();

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'durable-agent-cli-long-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const toolTurn = (name: string) => ({ content: [{ type: 'tool_use', name, input: {} }], stop_reason: 'tool_use' });

describe('long-running tools from the CLI', () => {
  it("status shows a running tool's latest progress message, attempt and timeout; --json per in-flight call", async () => {
    const { cli, spawn, background } = session({ LONG_TOOLS_DIR: dir });
    let worker: CliProcess | undefined;
    try {
      const script = await scriptFile([toolTurn('build'), endTurn('Built.')]);
      worker = spawn(['worker', '--scripted', '--config', LONG_TOOLS], { AGENT_SCRIPT: script });
      await worker.waitForStderr(/worker polling task queue/);
      const started = await cli(['start', '--config', LONG_TOOLS, '--tools', 'build', 'build the project']);
      expectExit(started, 0);
      const id = started.stdout.trim();
      type Report = { toolCalls: Array<{ progress?: { message: string; fraction?: number }; attempt: number; maximumAttempts: number }> };
      let report: Report = { toolCalls: [] };
      await until(async () => {
        report = jsonOf<Report>(await cli(['status', id, '--json']));
        return report.toolCalls[0]?.progress?.message === 'linking';
      }, 'the progress message in status --json', 10_000);
      expect(report.toolCalls[0]).toMatchObject({ attempt: 1, maximumAttempts: 3, progress: { message: 'linking', fraction: 0.8 } });
      const text = await cli(['status', id]);
      expectExit(text, 0);
      expect(text.stdout).toMatch(/^ {2}build \(\S+\): attempt 1 of 3 · running [\d.]+s · timeout 10m · "linking" \(80%\)$/m);
      // watch prints a line when the running call reports progress.
      const watching = background(['watch', id]);
      await watching.waitForStdout(/^ {2}… build attempt 1 of 3 · running [\d.]+s · timeout 10m · "linking" \(80%\)$/m, 20_000);
      await writeFile(path.join(dir, 'release'), '');
      expectExit(await watching.exited, 0);
      const result = await cli(['result', id]);
      expectExit(result, 0);
      expect(result.stdout).toContain('Built.');
    } finally {
      await stopWorker(worker);
    }
  });

  it('complete-tool gives a waiting call its result (as an is_error one with --error), and status says it waits', async () => {
    const { cli, spawn } = session({ LONG_TOOLS_DIR: dir });
    let worker: CliProcess | undefined;
    try {
      const script = await scriptFile([toolTurn('ci_job'), endTurn('The pipeline answered.')]);
      worker = spawn(['worker', '--scripted', '--config', LONG_TOOLS], { AGENT_SCRIPT: script });
      await worker.waitForStderr(/worker polling task queue/);
      const started = await cli(['start', '--config', LONG_TOOLS, '--tools', 'ci_job', 'run the pipeline']);
      expectExit(started, 0);
      const id = started.stdout.trim();
      const tokenFile = path.join(dir, 'token');
      await until(async () => existsSync(tokenFile), 'the completion token', 20_000);
      const token = await readFile(tokenFile, 'utf8');
      await until(async () => /waiting for an outside completion \(complete-tool\) for/.test((await cli(['status', id])).stdout), 'status to say the call waits', 10_000);
      const done = await cli(['complete-tool', token, '--error', 'the pipeline failed at stage 3']);
      expectExit(done, 0);
      expect(done.stdout).toMatch(/^completed tool call \S+ of .* \(as an error\)\n$/);
      expectExit(await cli(['result', id]), 0);
      const transcript = jsonOf<Array<{ content: unknown }>>(await cli(['transcript', id, '--json']));
      expect(transcript[2].content).toEqual([expect.objectContaining({ type: 'tool_result', is_error: true, content: 'the pipeline failed at stage 3' })]);
      expectUsageError(await cli(['complete-tool', token, '--result', 'again']), /the run has ended \(completed\), so the call can no longer be completed/);
    } finally {
      await stopWorker(worker);
    }
  });

  it("logs each failed attempt of a tool call once, saying truly whether another attempt follows", async () => {
    const { cliProcess } = session();
    const config = path.join(dir, 'flaky.mjs');
    await writeFile(
      config,
      "export default { tools: [{ name: 'flaky', description: 'd', inputSchema: { type: 'object' }, retry: { maximumAttempts: 2, initialInterval: '100ms' }, execute: async () => { throw new Error('disk full'); } }] };\n",
    );
    const script = await scriptFile([toolTurn('flaky'), endTurn('It failed.')]);
    // A process: these lines are the CLI's Temporal runtime's logger's, installed once per process.
    const exit = await cliProcess(['run', '--scripted', '--config', config, '--tools', 'flaky', 'try it'], { AGENT_SCRIPT: script });
    expectExit(exit, 0);
    const lines = exit.stderr.split('\n').filter((l) => l.includes('disk full'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/runTool failed on attempt 1 of 2: disk full; another attempt follows/);
    expect(lines[1]).toMatch(/runTool failed on attempt 2 of 2: disk full; that was the last attempt: the model gets the error/);
    expect(exit.stderr).not.toMatch(/Temporal retries it/);
  });

  it('logs a tool result too large for one payload once, as not retried, never as "Temporal retries it"', async () => {
    const { cliProcess } = session();
    const config = path.join(dir, 'huge.mjs');
    // An image passes the output limit whole (only text is cut): 2.5 MB of it is over one payload's limit.
    await writeFile(
      config,
      "export default { tools: [{ name: 'huge', description: 'd', inputSchema: { type: 'object' }, execute: async () => [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(2_500_000) } }] }] };\n",
    );
    const script = await scriptFile([toolTurn('huge'), endTurn('Too big.')]);
    // A process: these lines are the CLI's Temporal runtime's logger's, installed once per process.
    const exit = await cliProcess(['run', '--scripted', '--config', config, '--tools', 'huge', 'try it'], { AGENT_SCRIPT: script });
    expectExit(exit, 0);
    const lines = exit.stderr.split('\n').filter((l) => l.includes('over the 1800000-byte limit of one Temporal payload'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/runTool failed on attempt 1 of \d+: the result of tool "huge" is \d+ bytes, .*; not retried \(retrying cannot fix it\): the model gets the error/);
    expect(exit.stderr).not.toMatch(/Temporal retries it/);
  });

  it('refuses a bad timeout, heartbeat or retry policy when the tool is loaded: one line naming the tool and the field, exit 2', async () => {
    const { cli } = session();
    const write = async (name: string, tool: string) => {
      const file = path.join(dir, name);
      await writeFile(
        file,
        `export default { tools: [{ name: 'slow_build', description: 'd', inputSchema: { type: 'object' }, execute: async () => 'x', ${tool} }] };\n`,
      );
      return file;
    };
    const badMcp = path.join(dir, 'bad-mcp.mjs');
    await writeFile(badMcp, "export default { mcpServers: { ci: { url: 'http://127.0.0.1:9/mcp', toolTimeouts: { build: 'forever' } } } };\n");
    const cases: Array<[string[], RegExp]> = [
      [['run', '--scripted', '--config', await write('t.mjs', "timeout: '2x'"), 'x'], /Tool "slow_build": timeout: invalid duration "2x"/],
      [['worker', '--config', await write('z.mjs', 'timeout: 0')], /Tool "slow_build": timeout must be at least 1 ms \(got 0\)/],
      [['start', '--config', await write('n.mjs', "timeout: '-1m'"), 'x'], /Tool "slow_build": timeout: invalid duration "-1m"/],
      [['run', '--scripted', '--config', await write('r.mjs', 'retry: { maximumAttempts: 0 }'), 'x'], /Tool "slow_build": retry\.maximumAttempts must be a whole number of at least 1/],
      [['worker', '--config', badMcp], /mcpServers\.ci\.toolTimeouts\.build: invalid duration "forever"/],
      [['start', '--tool-timeout', '0s', 'x'], /--tool-timeout must be at least 1000 ms \(got 0 ms\)/],
      [['start', '--tool-timeout', 'an hour', 'x'], /--tool-timeout: invalid duration "an hour"/],
    ];
    const exits = await Promise.all(cases.map(([args]) => cli(args)));
    exits.forEach((exit, i) => {
      expectUsageError(exit, cases[i][1]);
      expect(exit.stderr.trim().split('\n')).toHaveLength(1);
    });
  });
});
