// The embedded server restarted on its SQLite file: a run in flight goes on when it comes back.
// (A test that restarts the server starts its own, not the shared one.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { getAgentResult, getTranscript } from '../../src/client/index.js';
import { findFreePort, startDevServer, type DevServer } from '../../src/devserver/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { withAgent, type TestEnv } from '../helpers/harness.js';

describe('server restart', () => {
  it('a run in flight continues after the embedded server restarts on the same database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restart-'));
    const dbFile = join(dir, 'temporal.db');
    const port = await findFreePort();
    let server: DevServer | undefined = await startDevServer({ port, uiPort: false, dbFile });
    const connection = await NativeConnection.connect({ address: server.address });
    const client = new Client({ connection: await Connection.connect({ address: server.address }) });
    const env: TestEnv = { client, connection, close: async () => undefined };
    const script = [
      reply([text('first'), toolUse('calculator', { expression: '1 + 1' })]),
      { ...reply([text('second'), toolUse('calculator', { expression: '2 + 2' })]), hold: true },
      reply([text('The answers are 2 and 4.')]),
    ];
    try {
      await withAgent(env, { script }, async ({ start, model }) => {
        const id = await start('survive a restart', { maxSteps: 10 });
        await model.waitForHeld(1, 20_000); // model call 2 is in flight
        await server!.stop();
        server = await startDevServer({ port, uiPort: false, dbFile });
        model.release();
        const result = await getAgentResult(client, id);
        expect(result).toMatchObject({ status: 'completed', steps: 3, toolCalls: 2, text: 'The answers are 2 and 4.' });
        const transcript = await getTranscript(client, id);
        expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
      });
    } finally {
      await client.connection.close().catch(() => undefined);
      await connection.close().catch(() => undefined);
      await server?.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
