// The full Temporal stack (server 1.29.1 on PostgreSQL, the parts of docker-compose.yml) started by the
// project's own script: a batch of agents across two worker processes, one killed mid-batch; every run must
// complete, and visibility (SQL, with the agent's search attributes) must list them by status.
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectClient, resolveTemporalTarget } from '../../src/client/connection.js';
import { defaultSettings, getAgentResult, startAgent } from '../../src/client/index.js';
import { startCluster, type Cluster } from '../../devtools/cluster.js';
import { endTurn, expectExit, jsonOf, stopWorker, toolTurn, useCli, type CliProcess } from '../helpers/cli.js';

const RUNS = 16;
const cli = useCli();
let cluster: Cluster | undefined;
let client: Client | undefined;

describe('the full Temporal stack (npm run cluster)', () => {
  beforeAll(async () => {
    // The binaries are built by .ci/run before the tests (`npm run cluster -- --build`); from a cold cache
    // this hook builds them itself, which takes minutes.
    cluster = await startCluster({ log: (m) => console.error(`[cluster] ${m}`) });
    // connectClient: a call still waiting to retry when the connection closes (a failed test's result polls) ends
    // with an error of its own instead of the SDK's uncaught "Channel has been shut down".
    client = await connectClient(resolveTemporalTarget({ TEMPORAL_ADDRESS: cluster.address }));
  }, 20 * 60_000);

  afterAll(async () => {
    await client?.connection.close();
    await cluster?.stop();
  }, 60_000);

  it('runs a batch of agents across two worker processes, one SIGKILLed mid-batch, and lists them all by status', async () => {
    const session = cli.session({ TEMPORAL_ADDRESS: cluster!.address });
    const script = [{ ...toolTurn('6*7'), delayMs: 300 }, endTurn('The answer is 42.', 300)];
    // The worker to be killed answers no model call before it dies (each is held ten minutes, heartbeating), so
    // whatever it picked up is still in flight when it is killed, however fast or slow the machine is.
    const held = [{ ...toolTurn('6*7'), delayMs: 600_000 }, endTurn('The answer is 42.', 600_000)];
    // Processes: one is SIGKILLed, found by its pid.
    const workers: CliProcess[] = [await session.workerProcess(held), await session.workerProcess(script)];
    try {
      const settings = defaultSettings({ tools: ['calculator'], heartbeatTimeoutMs: 2_000 });
      const started = await Promise.all(
        Array.from({ length: RUNS }, (_, i) =>
          startAgent(client!, { task: `cluster batch run ${i}: what is 6*7?`, taskQueue: session.taskQueue, settings }),
        ),
      );
      const ids = started.map((s) => s.workflowId);
      expect(started.every((s) => !s.attached)).toBe(true);

      // Kill the first worker once the batch is under way: a run done (by the other worker) and a model call
      // in flight on this one (its identity is `<pid>@<host>`).
      await Promise.any(ids.map((id) => getAgentResult(client!, id)));
      const doomed = `${workers[0].child.pid}@`;
      await vi.waitFor(
        async () => {
          const pending = await Promise.all(ids.map(async (id) => (await client!.workflow.getHandle(id).describe()).raw.pendingActivities ?? []));
          expect(pending.flat().some((a) => a.lastWorkerIdentity?.startsWith(doomed)), 'a call in flight on the worker to be killed').toBe(true);
        },
        { timeout: 30_000, interval: 200 },
      );
      workers[0].kill('SIGKILL');
      const statuses = await Promise.all(ids.map(async (id) => (await client!.workflow.getHandle(id).describe()).status.name));
      expect(statuses.filter((s) => s === 'RUNNING').length, 'runs still in flight when the worker was killed').toBeGreaterThan(0);

      const results = await resultsOrWhyNot(client!, ids, cluster!.serverLog);
      for (const result of results) {
        expect(result).toMatchObject({ status: 'completed', text: 'The answer is 42.', steps: 2, toolCalls: 1 });
      }

      // Visibility on PostgreSQL: the agent's search attributes filter the fleet (eventually consistent).
      await vi.waitFor(
        async () => {
          const exit = await session.cli(['list', '--status', 'completed', '--limit', '1000', '--json']);
          expectExit(exit, 0);
          const listed = new Set(jsonOf<Array<{ workflowId: string }>>(exit).map((r) => r.workflowId));
          expect(ids.filter((id) => !listed.has(id))).toEqual([]);
        },
        { timeout: 30_000, interval: 500 },
      );
      const running = jsonOf<Array<{ workflowId: string }>>(await session.cli(['list', '--status', 'running', '--limit', '1000', '--json']));
      expect(running.filter((r) => ids.includes(r.workflowId))).toEqual([]);
    } finally {
      for (const worker of workers) await stopWorker(worker);
    }
  }, 180_000);
});

/** The runs' results; if they are not all in after RESULTS_WAIT_MS, an Error that says, for each run still open,
 * what it waits on (its pending workflow task and activities, their attempts, workers and last failures), and what
 * the server last logged, so a run that never finishes fails the test with its reason instead of a bare test timeout
 * (seen once, 2026-12-06 19:18). */
async function resultsOrWhyNot(client: Client, ids: string[], serverLog: () => string) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    const why = () => whyNotDone(client, ids).catch((err: Error) => `the runs could not be described: ${err.message}`);
    timer = setTimeout(() => void why().then((text) => reject(new Error(`${text}\nthe server's last output:\n${serverLog().trim() || '(none)'}`))), RESULTS_WAIT_MS);
  });
  try {
    return await Promise.race([Promise.all(ids.map((id) => getAgentResult(client, id))), late]);
  } finally {
    clearTimeout(timer);
  }
}

const RESULTS_WAIT_MS = 120_000;

async function whyNotDone(client: Client, ids: string[]): Promise<string> {
  const open: string[] = [];
  for (const id of ids) {
    const { raw, status } = await client.workflow.getHandle(id).describe();
    if (status.name !== 'RUNNING') continue;
    const task = raw.pendingWorkflowTask;
    const activities = (raw.pendingActivities ?? []).map(
      (a) => `${a.activityType?.name} (state ${a.state}, attempt ${a.attempt}, worker ${a.lastWorkerIdentity || '-'}, last failure ${a.lastFailure?.message ?? '-'})`,
    );
    open.push(`${id}: workflow task ${task ? `state ${task.state}, attempt ${task.attempt}` : '-'}; activities: ${activities.join('; ') || '-'}`);
  }
  return `${open.length} of ${ids.length} runs not done after ${RESULTS_WAIT_MS / 1000} s:\n${open.join('\n')}`;
}
