// An MCP server's elicitation is a question the run holds: it waits (no activity runs meanwhile) across a SIGKILL of
// the worker, `answer` answers it on the next worker (a bad answer refused with exit 2, the question still pending),
// and the call made again gets the recorded answer for the server's repeated request.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { defaultSettings, getAgentResult, getStatus, startAgent } from '../../src/client/index.js';
import { reply, startScriptedModel, text, toolUse, type MessagesRequestBody } from '../../src/scripted/index.js';
import { cliCommand } from '../helpers/cli.js';
import { useTestEnv } from '../helpers/harness.js';
import { stateDir, stdioFixture } from '../helpers/mcp.js';
import { sigkill, startWorkerProcess } from '../helpers/worker-process.js';
import { testServerAddress } from '../helpers/test-server.js';

const WORKER = fileURLToPath(new URL('../fixtures/crash-worker.mjs', import.meta.url));

const env = useTestEnv();

const cli = cliCommand;

describe('an MCP elicitation as a durable question', () => {
  it('holds the question across a SIGKILL of the worker, refuses a bad answer, and gives the answer to the server when the call is made again', { timeout: 120_000 }, async () => {
    const state = stateDir();
    const model = await startScriptedModel({
      script: (body: MessagesRequestBody) => {
        if (body.messages.length === 1) return reply([toolUse('fx__ask', { job: 'backup' })]);
        const [result] = body.messages[body.messages.length - 1].content as Array<{ content: unknown }>;
        return reply([text(`Done: ${String(result.content)}`)]);
      },
    });
    const taskQueue = `elicit-${randomUUID()}`;
    const workerEnv = {
      TEMPORAL_ADDRESS: testServerAddress(),
      AGENT_TASK_QUEUE: taskQueue,
      ANTHROPIC_BASE_URL: model.url,
      CRASH_DIR: state.dir,
      MCP_SERVERS: JSON.stringify({ fx: stdioFixture({ stateDir: state.dir, args: ['--elicit'] }) }),
    };
    const workers = [await startWorkerProcess(WORKER, workerEnv)];
    try {
      const settings = defaultSettings({ tools: ['fx__*'], heartbeatTimeoutMs: 2_000 });
      const { workflowId } = await startAgent(env.client, { task: 'back it up', settings, taskQueue });
      const waiting = await vi.waitFor(
        async () => {
          const s = await getStatus(env.client, workflowId);
          expect(s.view?.pendingQuestions).toHaveLength(1);
          return s;
        },
        { timeout: 30_000, interval: 200 },
      );
      expect(waiting.view!.status).toBe('awaiting_input');
      const [question] = waiting.view!.pendingQuestions!;
      expect(question).toMatchObject({ server: 'fx', message: 'Which region should backup run in?', id: `${question.toolUseId}/1` });
      expect(question.requestedSchema).toMatchObject({ required: ['region'] });

      await sigkill(workers[0]);
      // The question lives in the run, not in a worker: with none running, status still shows it (from history).
      const offline = await getStatus(env.client, workflowId, 2_000);
      expect(offline.view?.pendingQuestions?.map((q) => q.id)).toEqual([question.id]);

      workers.push(await startWorkerProcess(WORKER, workerEnv));
      const shown = await cli(['status', workflowId]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(`${question.id} from MCP server "fx" (${question.toolUseId}): Which region should backup run in?`);
      expect(shown.stdout).toContain('  schema: {"type":"object","properties":{"region":{"type":"string","enum":["eu","us"]}');
      expect(shown.stdout).toContain(`  answer with: answer ${workflowId} ${question.id} --json '{...}'  |  --decline  |  --cancel`);
      const bad = await cli(['answer', workflowId, question.id, '--json', '{"region": "mars"}']);
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim()).toBe(`error: the answer to ${question.id} does not match the requested schema: "region" must be one of "eu", "us", not "mars"`);
      const unknown = await cli(['answer', workflowId, 'toolu_nope/1', '--json', '{"region": "eu"}']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr.trim()).toBe(`error: no question toolu_nope/1 is waiting for an answer (pending: ${question.id})`);
      const neither = await cli(['answer', workflowId]);
      expect([neither.code, neither.stderr.split('\n')[0]]).toEqual([2, "error: give exactly one of --json '{...}', --decline, --cancel"]);
      const notJson = await cli(['answer', workflowId, '--json', '{region: eu}']);
      expect(notJson.code).toBe(2);
      expect(notJson.stderr).toMatch(/^error: --json is not valid JSON \(.*\); write an object like '\{"name": "Ada"\}'\n$/);
      expect((await getStatus(env.client, workflowId)).view?.pendingQuestions?.map((q) => q.id)).toEqual([question.id]);

      // The count is left out: the schema's default (SEP-1034) fills it.
      const answered = await cli(['answer', workflowId, '--json', '{"region": "eu"}']);
      expect(answered.code, answered.stderr).toBe(0);
      expect(answered.stdout).toBe(`accepted {"region":"eu","count":3} for ${question.id}\n`);

      const result = await getAgentResult(env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', text: 'Done: backup runs 3 times in eu' });
      // The server asked twice (the first call, then the call made again on the new worker's server process), with
      // the same idempotency key; the repeated request got the recorded answer.
      const elicited = (state.read('elicit.log') ?? '').split('\n').filter(Boolean).map((l) => JSON.parse(l));
      expect(elicited).toHaveLength(1);
      expect(elicited[0].answer).toEqual({ action: 'accept', content: { region: 'eu', count: 3 } });
      const asks = state.calls().filter((c) => c.tool === 'ask');
      expect(asks).toHaveLength(2);
      expect(asks[1].key).toBe(asks[0].key);
      expect(asks[1].pid).not.toBe(asks[0].pid);
    } finally {
      for (const w of workers) await sigkill(w);
      await model.close();
      rmSync(state.dir, { recursive: true, force: true });
    }
  });
});
