// A CLI worker whose server goes away while it holds a finished model call: Temporal's core logs the result it
// cannot deliver, with its payload bytes. The worker's stderr must show that it is retrying, never the bytes.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { describe, expect, it, vi } from 'vitest';
import { agentDataConverter } from '../../src/codec/data-converter.js';
import { redactPayloadBytes } from '../../src/codec/redact-logs.js';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { findFreePort, startDevServer, type DevServer } from '../../src/devserver/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { CliProcess, expectExit } from '../helpers/cli.js';

describe('worker logs', () => {
  it('redacts the core\'s payload dump and long base64 runs, and leaves ordinary text alone', () => {
    const line = 'Network error while completing activity {"status":"ActivityExecutionResult(Success([eyJjb250ZW50IjpbeyJ0eXBlIjoi..aW5wdXRfdG9rZW5zIjoxMn19fQ==]))","workflowId":"agent-run-ab12cd"}';
    expect(redactPayloadBytes(line)).toBe(
      'Network error while completing activity {"status":"ActivityExecutionResult(Success([<payload bytes redacted>]))","workflowId":"agent-run-ab12cd"}',
    );
    expect(redactPayloadBytes('data TGsFHqc3xstNXtOrtn3U0yrnxsuTzAc3BuCIoHh9Rns= end')).toBe('data <bytes redacted> end');
    const ordinary = 'runTool attempt 2 failed (agent-run-x1): ActivityExecutionResultUnavailable at file:///work/dist/activities/model.js:42';
    expect(redactPayloadBytes(ordinary)).toBe(ordinary);
  });

  it('a worker riding out a server outage with an undelivered result prints no payload bytes on stderr', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'durable-agent-worker-logs-'));
    const db = path.join(dir, 'temporal.db');
    const port = await findFreePort();
    let server: DevServer | undefined = await startDevServer({ port, uiPort: false, dbFile: db });
    const scriptFile = path.join(dir, 'script.json');
    // The first reply takes 3 s: the server is stopped while the worker waits for it.
    await writeFile(scriptFile, JSON.stringify([
      { ...reply([text('Computing the secret sum.'), toolUse('calculator', { expression: '6*7' })]), delayMs: 3000 },
      reply([text('It is 42.')]),
    ]));
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) if (/^(ANTHROPIC_|AGENT_|TEMPORAL_)/.test(key)) delete env[key];
    Object.assign(env, { TEMPORAL_ADDRESS: server.address, AGENT_TASK_QUEUE: 'worker-logs', AGENT_SCRIPT: scriptFile, TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH ?? '' });
    const worker = new CliProcess(['worker', '--scripted'], env, 110_000);
    let client: Client | undefined;
    try {
      await worker.waitForStderr(/worker polling task queue "worker-logs"/);
      client = new Client({ connection: await Connection.connect({ address: server.address }), dataConverter: agentDataConverter({}) });
      const { workflowId } = await startAgent(client, { task: 'add six sevens', settings: defaultSettings({ tools: ['calculator'] }), taskQueue: 'worker-logs' });
      // The server goes once the worker holds the model call (started, its 3 s reply on the way), not after a time
      // guessed enough for that: under load the worker had not even scheduled it yet.
      const handle = client.workflow.getHandle(workflowId);
      const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;
      await vi.waitFor(async () => expect((await handle.describe()).raw.pendingActivities?.[0]?.state).toBe(STARTED), { timeout: 30_000, interval: 50 });
      await client.connection.close();
      await server.stop();
      server = undefined;
      // The reply arrives; delivering it fails, and the core says so (with the result it holds).
      await worker.waitForStderr(/respond_activity_task_completed retried|Network error while completing activity/, 60_000);
      server = await startDevServer({ port, uiPort: false, dbFile: db });
      client = new Client({ connection: await Connection.connect({ address: server.address }), dataConverter: agentDataConverter({}) });
      const result = await getAgentResult(client, workflowId);
      expect(result.status).toBe('completed');
      expect(result.text).toBe('It is 42.');
      worker.kill('SIGTERM');
      expectExit(await worker.exited, 0);
      // The undelivered result was logged, redacted; no payload bytes (JSON payloads start {" = base64 eyJ).
      expect(worker.stderr).toContain('Success([<payload bytes redacted>])');
      expect(worker.stderr).not.toMatch(/eyJ[A-Za-z0-9+/]{4,}/);
      expect(worker.stderr).not.toMatch(/\[[A-Za-z0-9+/=]{8,}\.\.[A-Za-z0-9+/=]{8,}\]/);
    } finally {
      worker.kill('SIGKILL');
      await client?.connection.close().catch(() => undefined);
      await server?.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
