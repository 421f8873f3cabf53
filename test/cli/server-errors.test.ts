// `server` when something goes wrong: a gRPC port already taken (by another Temporal server: it used to report
// that one as "ready", then exit 13 silently), a Web UI port taken (a stack trace before), and the Temporal
// process dying under it (a silent exit before). Each is one line on stderr and a non-zero exit.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/devserver/index.js';
import { expectExit, expectUsageError, startServerOnFreePorts, useCli } from '../helpers/cli.js';
import { testServerAddress } from '../helpers/test-server.js';

const { session } = useCli();
const dir = mkdtempSync(path.join(tmpdir(), 'durable-agent-server-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STACK_FRAME = /\n\s+at .+:\d+:\d+/;
const withBinary = () => ({ TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH });

describe('server: ports in use and a dying Temporal process', { timeout: 180_000 }, () => {
  it('a gRPC port where another Temporal server runs is exit 2 saying the port is in use (not "ready")', async () => {
    const busy = Number(testServerAddress().split(':').pop());
    const uiPort = await findFreePort();
    const exit = await session().cli(['server', '--port', String(busy), '--ui-port', String(uiPort), '--db', path.join(dir, 'a.db')], withBinary());
    expectUsageError(exit, new RegExp(`port ${busy} is in use \\(another Temporal server\\?\\).*--port N`));
    expect(exit.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a Web UI port in use is one line, exit 2, no stack trace', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const uiPort = (blocker.address() as net.AddressInfo).port;
    try {
      const port = await findFreePort();
      const exit = await session().cli(['server', '--port', String(port), '--ui-port', String(uiPort), '--db', path.join(dir, 'b.db')], withBinary());
      expectUsageError(exit, new RegExp(`the Web UI port ${uiPort} is in use: .*--ui-port N`));
      expect(exit.stderr.trim().split('\n')).toHaveLength(1);
      expect(exit.stderr).not.toMatch(STACK_FRAME);
    } finally {
      blocker.close();
    }
  });

  it('when the Temporal process dies, server says so and exits 1 (not silently)', async () => {
    const { server } = await startServerOnFreePorts(session(), ['--db', path.join(dir, 'c.db')], withBinary());
    try {
      const children = execFileSync('pgrep', ['-P', String(server.child.pid)], { encoding: 'utf8' }).trim().split('\n');
      expect(children.length).toBeGreaterThan(0);
      for (const pid of children) process.kill(Number(pid), 'SIGKILL');
      const exit = await server.exited;
      expectExit(exit, 1);
      expect(exit.stderr).toMatch(/error: the Temporal server process was killed by SIGKILL.*start `server` again/);
      expect(exit.stderr).not.toMatch(STACK_FRAME);
    } finally {
      server.kill('SIGKILL');
    }
  });
});
