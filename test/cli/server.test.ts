// `durable-agent server`: the embedded Temporal dev server in the foreground, run from the build. It starts on
// the ports it is given, answers gRPC and serves its Web UI, keeps its data in the --db file, and stops
// cleanly on SIGINT (exit 0, the port closed).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { isServerReachable } from '../../src/devserver/index.js';
import { startServerOnFreePorts, useCli } from '../helpers/cli.js';

const { session } = useCli();
const dir = mkdtempSync(path.join(tmpdir(), 'durable-agent-server-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('durable-agent server', { timeout: 120_000 }, () => {
  it('starts on --port and --ui-port with --db, answers, and stops on SIGINT with exit 0', async () => {
    const db = path.join(dir, 'temporal.db');
    // The session strips TEMPORAL_* from the environment; the binary is found on PATH or in the cache, or here.
    const { server, port, uiPort } = await startServerOnFreePorts(session(), ['--db', db], {
      TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH,
    });
    try {
      expect(server.stdout).toBe(`Temporal server: 127.0.0.1:${port}\nWeb UI: http://127.0.0.1:${uiPort}\n`);

      const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
      try {
        const client = new Client({ connection });
        const { namespaceInfo } = await client.workflowService.describeNamespace({ namespace: 'default' });
        expect(namespaceInfo?.name).toBe('default');
      } finally {
        await connection.close();
      }
      await expect.poll(async () => (await fetch(`http://127.0.0.1:${uiPort}/`).catch(() => null))?.status, { timeout: 30_000 }).toBe(200);
      expect(existsSync(db)).toBe(true);

      server.kill('SIGINT');
      const exit = await server.exited;
      expect(exit.code, exit.stderr).toBe(0);
      expect(exit.stderr).toMatch(/server stopped/);
      expect(await isServerReachable(`127.0.0.1:${port}`, 1000)).toBe(false);
    } finally {
      server.kill('SIGKILL');
    }
  });
});
