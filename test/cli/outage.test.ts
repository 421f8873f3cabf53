// The CLI rides out a server outage: `run` (with its in-process worker), `result` and `watch` keep waiting while
// the server is down, say so on stderr, and finish with the right result once it is back on the same port and
// database. The test starts its OWN dev server (it stops it), never the shared one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort, startDevServer, type DevServer } from '../../src/devserver/index.js';
import { endTurn, expectExit, jsonOf, stopWorker, toolTurn, useCli, type CliProcess } from '../helpers/cli.js';

const { session, scriptFile } = useCli();
const dir = mkdtempSync(path.join(tmpdir(), 'durable-agent-outage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const UNREACHABLE = /the Temporal server at \S+ is unreachable: .* waits and retries until it is back/;
const BACK = /the Temporal server at \S+ answers again/;

async function modelCallsScheduled(address: string, workflowId: string): Promise<number> {
  const connection = await Connection.connect({ address });
  try {
    const history = await new Client({ connection }).workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? []).filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel').length;
  } finally {
    await connection.close();
  }
}

describe('a server outage', () => {
  it('run, result and watch wait through a server restart (same port, same db) and finish with the right result', async () => {
    const port = await findFreePort();
    const dbFile = path.join(dir, 'temporal.db');
    let server: DevServer | undefined = await startDevServer({ port, uiPort: false, dbFile });
    const { spawn } = session({ TEMPORAL_ADDRESS: server.address });
    // The second model call takes 8 s: the server goes down while it is in flight and `result` / `watch` wait.
    const script = await scriptFile([toolTurn('6*7'), endTurn('The answer is 42.', 8_000)]);
    const processes: CliProcess[] = [];
    try {
      const run = spawn(['run', '--scripted', '--json', 'what is 6*7?'], { AGENT_SCRIPT: script }, 240_000);
      processes.push(run);
      const [, id] = await run.waitForStderr(/started run (\S+)/, 60_000);
      const result = spawn(['result', id, '--json'], {}, 240_000);
      const watch = spawn(['watch', id], {}, 240_000);
      processes.push(result, watch);
      await expect.poll(() => modelCallsScheduled(server!.address, id), { timeout: 60_000, interval: 300 }).toBeGreaterThanOrEqual(2);
      await watch.waitForStdout(/step 1 · model call/, 60_000);
      await result.waitForStderr(/is running: waiting for it to end/, 60_000);

      await server.stop();
      const stoppedAt = Date.now();
      server = undefined;
      // Each says so once a call failed as unreachable: inside their wait the client gives up on an unavailable server
      // after about 1 s of retries (not its usual 20 s: src/client/connection.ts, callerRidesOutages), the moment each
      // exited before this was handled. Still running after that, and after their next retry (the first comes 500 ms
      // later: each is still waiting once it is due twice over), they wait on.
      for (const p of [run, result, watch]) await p.waitForStderr(UNREACHABLE, 90_000);
      console.error(`outage: all three said the server is unreachable ${Date.now() - stoppedAt} ms after it stopped`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      for (const p of [run, result, watch]) expect(p.child.exitCode, p.stderr).toBeNull();

      server = await startDevServer({ port, uiPort: false, dbFile });
      const [runExit, resultExit, watchExit] = await Promise.all([run.exited, result.exited, watch.exited]);
      for (const exit of [runExit, resultExit, watchExit]) {
        expectExit(exit, 0);
        expect(exit.stderr).toMatch(BACK);
        expect(exit.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
      }
      const fromRun = jsonOf<{ status: string; text: string; steps: number; toolCalls: number; workflowId: string }>(runExit);
      expect(fromRun).toMatchObject({ workflowId: id, status: 'completed', text: 'The answer is 42.', steps: 2, toolCalls: 1 });
      expect(jsonOf(resultExit)).toEqual(fromRun);
      expect(watchExit.stdout).toContain('The answer is 42.');
      expect(watchExit.stdout).toMatch(/— completed on end_turn · 2 model calls · 1 tool call/);
    } finally {
      for (const p of processes) await stopWorker(p);
      await server?.stop();
    }
  }, 300_000);
});
