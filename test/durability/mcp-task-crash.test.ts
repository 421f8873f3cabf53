// A tool that requires MCP task execution, on a streamable-HTTP server that outlives the worker: the call creates one
// task, keeps its id in the call's heartbeat details, and after a SIGKILL of the worker mid-task the retry on another
// worker resumes that task (the server saw one task, not two) and the run completes with its result.
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { defaultSettings, getAgentResult, getStatus, startAgent } from '../../src/client/index.js';
import { reply, startScriptedModel, text, toolUse, type MessagesRequestBody } from '../../src/scripted/index.js';
import { useTestEnv } from '../helpers/harness.js';
import { startHttpFixture, stateDir } from '../helpers/mcp.js';
import { sigkill, startWorkerProcess } from '../helpers/worker-process.js';
import { testServerAddress } from '../helpers/test-server.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash-worker.mjs', import.meta.url));

const env = useTestEnv();

describe('an MCP task across a worker crash', () => {
  it('resumes the same task on the next worker after the one running it is SIGKILLed mid-task', { timeout: 90_000 }, async () => {
    const state = stateDir();
    const server = await startHttpFixture({ args: ['--task-tool'], env: { MCP_STATE_DIR: state.dir } });
    const model = await startScriptedModel({
      script: (body: MessagesRequestBody) => {
        if (body.messages.length === 1) return reply([toolUse('fx__long_task', { ms: 6000 })]);
        const [result] = body.messages[body.messages.length - 1].content as Array<{ content: unknown }>;
        return reply([text(`Result: ${String(result.content)}`)]);
      },
    });
    const taskQueue = `mcp-task-${randomUUID()}`;
    const workerEnv = {
      TEMPORAL_ADDRESS: testServerAddress(),
      AGENT_TASK_QUEUE: taskQueue,
      ANTHROPIC_BASE_URL: model.url,
      CRASH_DIR: state.dir,
      MCP_SERVERS: JSON.stringify({ fx: { url: server.url } }),
    };
    const workers = [await startWorkerProcess(WORKER, workerEnv)];
    try {
      const settings = defaultSettings({ tools: ['fx__*'], heartbeatTimeoutMs: 2_000 });
      const { workflowId } = await startAgent(env.client, { task: 'run the long task', settings, taskQueue });
      // The task id is in the call's heartbeat details (status shows it) before the worker dies.
      const running = await vi.waitFor(
        async () => {
          const [call] = (await getStatus(env.client, workflowId)).toolCalls;
          expect(call?.mcpTaskId).toEqual(expect.any(String));
          return call;
        },
        { timeout: 30_000, interval: 100 },
      );
      await sigkill(workers[0]);
      workers.push(await startWorkerProcess(WORKER, workerEnv));

      const result = await getAgentResult(env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', text: `Result: task ${running.mcpTaskId} finished after 6000 ms` });
      // One task, one tools/call: the retry polled the task it found in the heartbeat, it did not call again.
      const tasks = (state.read('tasks.log') ?? '').split('\n').filter(Boolean);
      expect(tasks.map((l) => JSON.parse(l).taskId)).toEqual([running.mcpTaskId]);
      expect(state.calls().filter((c) => c.tool === 'long_task')).toHaveLength(1);
      const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
      const events = history.events ?? [];
      const attempts = events.flatMap((e) => e.activityTaskStartedEventAttributes?.attempt ?? []);
      expect(Math.max(...attempts)).toBe(2);
      // The second attempt is the one that completed, with the result of the one task (the counts above: it did not
      // start a task of its own and wait a whole task's 6 s).
      const retry = events.find((e) => e.activityTaskStartedEventAttributes?.attempt === 2)!;
      const retryDone = events.find((e) => e.activityTaskCompletedEventAttributes && Number(e.activityTaskCompletedEventAttributes.startedEventId) === Number(retry.eventId));
      expect(retryDone).toBeDefined();
    } finally {
      for (const w of workers) await sigkill(w);
      await model.close();
      await server.stop();
      state.remove();
    }
  });
});
