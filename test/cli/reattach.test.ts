// `run` on the embedded server: Ctrl-C detaches (exit 130) and stops the server, the job's state stays in
// .durable-agent/temporal.db, and `run --id` started again restarts the server from it and finishes the job.
// It needs localhost:7233 (the embedded server's address), so it is skipped when something else answers there.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { isServerReachable } from '../../src/devserver/index.js';
import { countCliProcess } from '../helpers/cli-count.js';

const BIN = fileURLToPath(new URL('../../bin/durable-agent.js', import.meta.url));

function cli(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  countCliProcess(args);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, exited, stderr: () => stderr };
}

const turns = (slow: boolean) => [
  { content: [{ type: 'text', text: 'Step one.' }, { type: 'tool_use', name: 'calculator', input: { expression: '20 + 22' } }], stop_reason: 'tool_use' },
  { content: [{ type: 'text', text: 'The answer is 42.' }], stop_reason: 'end_turn', ...(slow ? { delayMs: 120_000 } : {}) },
];

describe('run on the embedded server', () => {
  it('detaches on Ctrl-C, and `run --id` started again restarts the server from its database and finishes the job', async (ctx) => {
    if (await isServerReachable('localhost:7233', 1000)) {
      ctx.skip(); // the embedded server's port is taken by another server: this test would attach to it
    }
    const cwd = mkdtempSync(path.join(tmpdir(), 'reattach-'));
    writeFileSync(path.join(cwd, 'slow.json'), JSON.stringify(turns(true)));
    writeFileSync(path.join(cwd, 'fast.json'), JSON.stringify(turns(false)));
    const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_API_KEY: '', AGENT_TASK_QUEUE: 'reattach-test' };
    delete env.TEMPORAL_ADDRESS;
    const id = `reattach-${Date.now()}`;
    try {
      const first = cli(['run', '--id', id, '--scripted', '--heartbeat-timeout', '2s', '--json', 'answer with 42'], cwd, {
        ...env,
        AGENT_SCRIPT: path.join(cwd, 'slow.json'),
      });
      // Wait until the second model call is in flight (the slow turn).
      const client = await waitForServer();
      await expect
        .poll(
          async () => {
            const history = await client.workflow.getHandle(id).fetchHistory().catch(() => undefined);
            return (history?.events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []).length;
          },
          { timeout: 60_000, interval: 200, message: 'the second model call is scheduled' },
        )
        .toBe(3); // model, tool, model (the tools are described in a local activity)
      await client.connection.close();
      first.child.kill('SIGINT');
      const detached = await first.exited;
      expect(detached.code, detached.stderr).toBe(130);
      expect(detached.stdout).toBe('');
      expect(detached.stderr).toContain(`reattach with: durable-agent run --id ${id} --scripted`);
      expect(await isServerReachable('localhost:7233', 1000)).toBe(false); // the embedded server stopped with it

      const second = cli(['run', '--id', id, '--scripted', '--json'], cwd, { ...env, AGENT_SCRIPT: path.join(cwd, 'fast.json') });
      const done = await second.exited;
      expect(done.stderr).toContain(`attached to existing run ${id}`);
      expect(done.code, done.stderr).toBe(0);
      const result = JSON.parse(done.stdout);
      expect(result).toMatchObject({ workflowId: id, status: 'completed', text: 'The answer is 42.', steps: 2, toolCalls: 1 });
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 120_000);
});

async function waitForServer(): Promise<Client> {
  await expect.poll(() => isServerReachable('localhost:7233', 1000), { timeout: 60_000, interval: 200, message: 'the server answers' }).toBe(true);
  return new Client({ connection: await Connection.connect({ address: 'localhost:7233' }) });
}

