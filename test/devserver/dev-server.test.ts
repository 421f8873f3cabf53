// Integration test against the real `temporal` binary (found via TEMPORAL_CLI_PATH, PATH or the project cache;
// this test never downloads or builds it: run `node dist/devserver/install-cli.js` once for that).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTERED_SEARCH_ATTRIBUTES } from '../../src/core/search-attributes.js';
import { findTemporalCli } from '../../src/devserver/find-temporal.js';
import { EMBEDDED_SERVER_DYNAMIC_CONFIG, findFreePort, isServerReachable, startDevServer, type DevServer } from '../../src/devserver/dev-server.js';

// What the server reports for each SDK search attribute type.
const { IndexedValueType } = temporal.api.enums.v1;
const INDEXED: Record<string, number> = {
  [SearchAttributeType.TEXT]: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  [SearchAttributeType.KEYWORD]: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  [SearchAttributeType.INT]: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  [SearchAttributeType.DOUBLE]: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  [SearchAttributeType.BOOL]: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  [SearchAttributeType.DATETIME]: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  [SearchAttributeType.KEYWORD_LIST]: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

let cliPath: string;
let dir: string;
const servers: DevServer[] = [];

beforeAll(async () => {
  cliPath = await findTemporalCli({ allowDownload: false, allowGoBuild: false });
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'dev-server-test-'));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await fs.rm(dir, { recursive: true, force: true });
});

async function start(opts: Parameters<typeof startDevServer>[0]): Promise<{ server: DevServer; ms: number }> {
  const t0 = Date.now();
  const server = await startDevServer({ cliPath, ...opts });
  servers.push(server);
  const ms = Date.now() - t0;
  console.log(`dev server started in ${ms} ms (${opts?.dbFile ? 'sqlite file' : 'in-memory'})`);
  return { server, ms };
}

// Each start/stop takes a second or two: far over vitest's 5 s default once a test does several.
describe('startDevServer', { timeout: 60_000 }, () => {
  it('starts with a db file and a UI, registers the search attributes, persists across restarts, stops', async () => {
    const dbFile = path.join(dir, 'nested', 'dir', 'dev.db'); // parent directories do not exist yet
    const { server } = await start({ dbFile });
    expect(server.address).toBe(`127.0.0.1:${server.port}`);
    expect(server.namespace).toBe('default');
    expect(await isServerReachable(server.address)).toBe(true);
    await fs.access(dbFile);

    expect(server.uiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ui = await fetch(server.uiUrl!);
    expect(ui.status).toBe(200);

    const connection = await Connection.connect({ address: server.address });
    try {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
      for (const key of REGISTERED_SEARCH_ATTRIBUTES) expect(customAttributes?.[key.name], key.name).toBe(INDEXED[key.type]);
      // A workflow start (no worker needed) must survive a restart on the same SQLite file.
      const client = new Client({ connection });
      await client.workflow.start('agentWorkflow', { taskQueue: 'nobody-polls', workflowId: 'persist-me', args: [] });
    } finally {
      await connection.close();
    }

    await server.stop();
    expect(await isServerReachable(server.address)).toBe(false);
    expect(server.process.exitCode !== null || server.process.signalCode !== null).toBe(true);

    // Restart: the search attributes are already registered in the db; that must not stop the server.
    const { server: again } = await start({ dbFile, uiPort: false });
    expect(again.uiUrl).toBeNull();
    const conn2 = await Connection.connect({ address: again.address });
    try {
      const desc = await new Client({ connection: conn2 }).workflow.getHandle('persist-me').describe();
      expect(desc.status.name).toBe('RUNNING');
    } finally {
      await conn2.close();
    }
    await again.stop();
  });

  // How quickly is a figure (printed, not asserted: timing belongs in bench/).
  it('starts in memory and stops, three times in a row (timed)', async () => {
    for (let i = 0; i < 3; i++) {
      const { server } = await start({ uiPort: false });
      const t0 = Date.now();
      await server.stop();
      console.log(`dev server stopped in ${Date.now() - t0} ms`);
    }
  });

  it('rejects with the output tail when the process exits before being ready', async () => {
    const err = await startDevServer({ cliPath, uiPort: false, extraArgs: ['--no-such-flag'] }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/exited with code \d+ before becoming ready/);
    expect((err as Error).message).toMatch(/no-such-flag/);
  });

  it('passes the embedded dynamic config (eager activities, a faster transfer queue) unless dynamicConfig says otherwise', async () => {
    // A "CLI" that exits at once: the error names the command line it was given.
    const commandOf = async (opts: Parameters<typeof startDevServer>[0]) =>
      ((await startDevServer({ cliPath: '/bin/true', uiPort: false, ...opts }).catch((e: Error) => e)) as Error).message.split('\n')[1];
    const embedded = await commandOf({});
    for (const value of EMBEDDED_SERVER_DYNAMIC_CONFIG) expect(embedded).toContain(`--dynamic-config-value ${value}`);
    expect(embedded).toContain('system.enableActivityEagerExecution=true');
    expect(embedded).toContain('history.transferProcessorMaxPollRPS=');
    const plain = await commandOf({ dynamicConfig: [] });
    expect(plain).not.toContain('system.enableActivityEagerExecution');
    expect(plain).not.toContain('transferProcessorMaxPollRPS');
  });

  it('isServerReachable is false for a port nobody listens on', async () => {
    const port = await findFreePort();
    expect(await isServerReachable(`127.0.0.1:${port}`, 1000)).toBe(false);
  });
});
