// The routes that answer what a run waits on from outside: an MCP server's question (POST /v1/runs/{id}/answers)
// and a tool call that completes later (POST /v1/completions), with a real worker; bad bodies are 4xx naming the field.
import { describe, expect, it } from 'vitest';
import { getAgentResult, getStatus } from '../../src/client/index.js';
import { reply, text, toolUse, type MessagesRequestBody } from '../../src/scripted/index.js';
import { defineTool } from '../../src/tools/types.js';
import { builtinTools } from '../../src/tools/registry.js';
import { eventually, startRun, useSharedAgent, useTestEnv } from '../helpers/harness.js';
import { stdioFixture } from '../helpers/mcp.js';
import { auth, call, openApi, READ } from './api-helpers.js';

const env = useTestEnv();
/** A tool that completes later, whose calls the test that brings it runs. */
const EXTERNAL_JOB = {
  name: 'external_job',
  description: 'Starts a job elsewhere, which reports its result when it is done.',
  inputSchema: { type: 'object' as const, properties: { job: { type: 'string' } }, required: ['job'] },
  timeout: '10m',
  completesLater: true,
};
// One worker for both tests: the elicitation fixture's server, and the external job's definition.
const agents = useSharedAgent(env, { tools: [...builtinTools, EXTERNAL_JOB], mcpServers: { fx: stdioFixture({ args: ['--elicit'] }) } });

/** The model calls `name` once, then says what the call returned. */
const callOnceThenReport = (name: string, input: Record<string, unknown>) => (body: MessagesRequestBody) => {
  if (body.messages.length === 1) return reply([toolUse(name, input, 'toolu_out')]);
  const [result] = body.messages[body.messages.length - 1].content as Array<{ content: unknown }>;
  return reply([text(`Done: ${String(result.content)}`)]);
};

describe('answering a run from outside over HTTP', () => {
  it("answers an MCP server's question: a bad answer is refused with the reason and the question stays; the right one goes to the server", { timeout: 60_000 }, async () => {
    await agents.with({ script: callOnceThenReport('fx__ask', { job: 'backup' }) }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const id = await startRun(h, 'back it up', { tools: ['fx__*'] });
        const waiting = await eventually(() => getStatus(env.client, id), (s) => (s.view?.pendingQuestions?.length ?? 0) === 1, 20_000);
        const [question] = waiting.view!.pendingQuestions!;
        const listed = await call(api, 'GET', '/v1/runs?status=awaiting_input');
        expect(listed.status).toBe(200);

        expect(await call(api, 'POST', `/v1/runs/${id}/answers`, { content: { region: 'eu' } })).toMatchObject({
          status: 400,
          json: { error: { type: 'invalid_request', field: 'action' } },
        });
        expect(await call(api, 'POST', `/v1/runs/${id}/answers`, { action: 'decline', content: { region: 'eu' } })).toMatchObject({
          status: 400,
          json: { error: { field: 'content' } },
        });
        expect((await call(api, 'POST', `/v1/runs/${id}/answers`, { action: 'accept' }, auth(READ))).status).toBe(403);
        const bad = await call(api, 'POST', `/v1/runs/${id}/answers`, { elicitationId: question.id, action: 'accept', content: { region: 'mars' } });
        expect(bad).toMatchObject({ status: 409, json: { error: { type: 'conflict' } } });
        expect(bad.json?.error).toMatchObject({ message: `the answer to ${question.id} does not match the requested schema: "region" must be one of "eu", "us", not "mars"` });
        const unknown = await call(api, 'POST', `/v1/runs/${id}/answers`, { elicitationId: 'toolu_nope/1', action: 'cancel' });
        expect(unknown).toMatchObject({ status: 409 });
        expect((await getStatus(env.client, id)).view?.pendingQuestions?.map((q) => q.id)).toEqual([question.id]);

        // The count is left out: the schema's default (SEP-1034) fills it.
        const answered = await call(api, 'POST', `/v1/runs/${id}/answers`, { action: 'accept', content: { region: 'eu' } });
        expect(answered).toMatchObject({ status: 200, json: { elicitationId: question.id, action: 'accept', content: { region: 'eu', count: 3 } } });
        expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'Done: backup runs 3 times in eu' });
      } finally {
        await api.close();
      }
    });
  });

  it('completes a tool call that completes later with its token; a token that is not one, or a missing field, is refused', { timeout: 60_000 }, async () => {
    let token: string | undefined;
    const externalJob = defineTool({
      ...EXTERNAL_JOB,
      execute(_input, ctx) {
        token = ctx.completionToken;
        return ctx.completeLater();
      },
    });
    await agents.with({ script: callOnceThenReport('external_job', { job: 'build' }), tools: [externalJob] }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const id = await startRun(h, 'build it', { tools: ['external_job'] });
        await eventually(async () => token, (t) => t !== undefined, 20_000);
        expect(await call(api, 'POST', '/v1/completions', { result: 'ok' })).toMatchObject({ status: 400, json: { error: { field: 'token' } } });
        expect(await call(api, 'POST', '/v1/completions', { token, result: 42 })).toMatchObject({ status: 400, json: { error: { field: 'result' } } });
        const notAToken = await call(api, 'POST', '/v1/completions', { token: 'hello', result: 'ok' });
        expect(notAToken).toMatchObject({ status: 409, json: { error: { type: 'conflict' } } });
        expect(notAToken.json?.error).toMatchObject({ message: expect.stringContaining('that is not a completion token') });

        const done = await call(api, 'POST', '/v1/completions', { token, result: 'the build passed' });
        expect(done).toMatchObject({ status: 200, json: { workflowId: id, toolUseId: 'toolu_out' } });
        expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'Done: the build passed' });
        // The call is over: its token cannot complete it again.
        expect((await call(api, 'POST', '/v1/completions', { token, result: 'again' })).status).toBe(409);
      } finally {
        await api.close();
      }
    });
  });
});
