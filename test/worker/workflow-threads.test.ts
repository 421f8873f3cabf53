// An agent worker's workflow threads run without the Temporal SDK's promise hook (src/worker/workflow-threads.ts): the
// stack-trace query says so, the run goes on as ever, `workflowStackTraces: true` brings Temporal's stack traces back,
// and nothing else in the process is touched. Real dev server, real worker threads, the scripted model through the
// real SDK.
import { createRequire } from 'node:module';
import { describe, expect, inject, it, vi } from 'vitest';
import { QueryNotRegisteredError } from '@temporalio/client';
import { getAgentResult } from '../../src/client/index.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { createAgentWorker } from '../../src/worker/worker.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();
const workerThreads = createRequire(import.meta.url)('node:worker_threads') as { Worker: unknown };

/** One calculator turn, then a model call that takes 3 s (the run waits in it while the test queries), then done. */
const script: Script = (_req, turn) =>
  turn === 0 ? reply([toolUse('calculator', { expression: '6*7' })]) : { ...reply([text('42')]), delayMs: turn === 1 ? 3000 : 0 };

/** The stack-trace query of a run, once it waits in its second model call. */
async function stackTraceWhileWaiting(h: { model: { requests: unknown[] }; env: typeof env }, workflowId: string): Promise<PromiseSettledResult<string>> {
  await vi.waitFor(() => expect(h.model.requests.length).toBe(2), { timeout: 15_000, interval: 50 });
  const [answer] = await Promise.allSettled([env.client.workflow.getHandle(workflowId).query<string>('__stack_trace')]);
  return answer;
}

describe('workflow threads', () => {
  it('an agent worker refuses the stack-trace query (its workflow threads have no promise hook), and its run completes as ever', async () => {
    await withAgent(env, { script }, async (h) => {
      const workflowId = await h.start('what is 6*7?');
      const answer = await stackTraceWhileWaiting(h, workflowId);
      // The worker's answer, "Workflow stack traces are not enabled on this worker", reaches the client as a failed
      // query whose message the project's failure converter keeps encoded: the test below is the same run with them on.
      expect(answer.status).toBe('rejected');
      expect((answer as PromiseRejectedResult).reason).toBeInstanceOf(QueryNotRegisteredError);
      const result = await getAgentResult(env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', text: '42', steps: 2, toolCalls: 1 });
    });
  });

  it('cancellation scopes still work without the hook (they rest on AsyncLocalStorage): a deadline cancels the held model call and the run stops with its partial answer', async () => {
    // Node's AsyncLocalStorage installs its own promise hook through the same `createHook` the preload withholds from the
    // SDK's stack-trace recorder. Were it withheld here too, every cancellation scope the run opens (the deadline's
    // wait for the cancelled call to settle is one) would throw, and the run would fail instead of stopping.
    const script = [reply([text('Working on it.'), toolUse('calculator', { expression: '6*7' })]), { ...reply([text('never answered')]), hold: true }];
    await withAgent(env, { script }, async (h) => {
      const result = await h.run('what is 6*7?', { deadlineMs: 1500 });
      expect(result).toMatchObject({ status: 'stopped', guard: 'deadline', partial: true, text: 'Working on it.', steps: 1, toolCalls: 1 });
      // Not one workflow task failed on the way (a scope that throws fails its task, which the server then retries).
      const history = await env.client.workflow.getHandle(result.workflowId).fetchHistory();
      expect(history.events?.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
      h.model.release();
    });
  });

  it('workflowStackTraces: true keeps Temporal stack traces: the query shows the loop waiting in its model call', async () => {
    await withAgent(env, { script, workflowStackTraces: true }, async (h) => {
      const workflowId = await h.start('what is 6*7?');
      const answer = await stackTraceWhileWaiting(h, workflowId);
      expect(answer.status).toBe('fulfilled');
      expect((answer as PromiseFulfilledResult<string>).value).toMatch(/at callModelOrFail \(.*src\/workflows\/agent\.ts/);
      expect(await getAgentResult(env.client, workflowId)).toMatchObject({ status: 'completed', text: '42' });
    });
  });

  it('the process keeps its own Worker constructor: the wrap lasts only while agent workers are being created', async () => {
    const before = workerThreads.Worker;
    // Two at once: the second ends its creation while the first may still be creating, and the last restores it.
    const agents = await Promise.all(
      [0, 1].map((i) =>
        createAgentWorker({
          connection: env.connection,
          client: env.client,
          taskQueue: `workflow-threads-${i}-${Date.now()}`,
          model: { apiKey: 'test-key', baseURL: 'http://127.0.0.1:9' },
          workflowBundlePath: inject('workflowBundlePath') || undefined,
        }),
      ),
    );
    expect(workerThreads.Worker).toBe(before);
    await Promise.all(agents.map(({ worker }) => worker.runUntil(Promise.resolve())));
  });
});
