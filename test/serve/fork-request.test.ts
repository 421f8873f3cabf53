// POST /v1/runs/{id}/fork over HTTP with a real worker: the fork reuses the run's recorded steps (one model request for
// its one live step), settings fields replace the source's, and bad requests are 400 / 404 naming the problem.
import { describe, expect, it } from 'vitest';
import { reply, text } from '../../src/scripted/index.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';
import { calc, call, openApi } from './api-helpers.js';

const env = useTestEnv();

describe('POST /v1/runs/{id}/fork', () => {
  it('forks a 3-step run at step 3: 201, one live model request, the result names the source and the step', async () => {
    await withAgent(env, { script: [calc('toolu_a'), calc('toolu_b'), reply([text('It is 4.')])] }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const started = await call(api, 'POST', '/v1/runs', { task: 'two plus two, twice', tools: ['calculator'], maxSteps: 5 });
        const id = started.json!.workflowId as string;
        expect((await call(api, 'GET', `/v1/runs/${id}/result?wait=30s`)).json).toMatchObject({ status: 'completed', steps: 3 });
        const before = h.model.requests.length;

        const forked = await call(api, 'POST', `/v1/runs/${id}/fork`, { fromStep: 3, maxSteps: 2 });
        expect(forked).toMatchObject({ status: 201, json: { forkedFrom: { workflowId: id, step: 3, reusedToolCalls: 2 } } });
        const forkId = forked.json!.workflowId as string;
        const result = await call(api, 'GET', `/v1/runs/${forkId}/result?wait=30s`);
        expect(result.json).toMatchObject({ status: 'completed', text: 'It is 4.', steps: 3, toolCalls: 0, forkedFrom: { workflowId: id, step: 3 } });
        expect(h.model.requests.length - before).toBe(1);
        expect((await call(api, 'GET', `/v1/runs/${forkId}`)).json).toMatchObject({ view: { forkedFrom: { workflowId: id, step: 3 } } });

        const beyond = await call(api, 'POST', `/v1/runs/${id}/fork`, { fromStep: 99 });
        expect(beyond).toMatchObject({ status: 400, json: { error: { field: 'fromStep', message: `run ${id} has 3 recorded steps: --from-step must be 1 to 3 (got 99)` } } });
        expect((await call(api, 'POST', `/v1/runs/${id}/fork`, {})).json).toMatchObject({ error: { field: 'fromStep' } });
        expect((await call(api, 'POST', `/v1/runs/${id}/fork`, { fromStep: 1, maxStep: 3 })).json).toMatchObject({ error: { field: 'maxStep' } });
        expect((await call(api, 'POST', '/v1/runs/no-such-run-for-fork/fork', { fromStep: 1 })).status).toBe(404);
      } finally {
        await api.close();
      }
    });
  });

  it("settings fields are checked over the source's settings: a thinkingBudget under the source's maxOutputTokens is taken", async () => {
    await withAgent(env, { script: [calc('toolu_a'), reply([text('It is 2.')])] }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const body = { task: 'two plus two', tools: ['calculator'], maxOutputTokens: 16000, thinkingBudget: 8000 };
        const id = (await call(api, 'POST', '/v1/runs', body)).json!.workflowId as string;
        expect((await call(api, 'GET', `/v1/runs/${id}/result?wait=30s`)).json).toMatchObject({ status: 'completed', steps: 2 });
        const forked = await call(api, 'POST', `/v1/runs/${id}/fork`, { fromStep: 2, thinkingBudget: 12000 });
        expect(forked).toMatchObject({ status: 201, json: { forkedFrom: { workflowId: id, step: 2 } } });
        const forkId = forked.json!.workflowId as string;
        expect((await call(api, 'GET', `/v1/runs/${forkId}/result?wait=30s`)).json).toMatchObject({ status: 'completed', text: 'It is 2.', steps: 2 });
        const sent = h.model.requests.at(-1)!.body as { max_tokens?: number; thinking?: { budget_tokens?: number } };
        expect(sent).toMatchObject({ max_tokens: 16000, thinking: { budget_tokens: 12000 } });
        // Over the source's maxOutputTokens it is refused, naming both fields.
        const refused = await call(api, 'POST', `/v1/runs/${id}/fork`, { fromStep: 2, thinkingBudget: 20000 });
        expect(refused).toMatchObject({ status: 400, json: { error: { field: 'thinkingBudget' } } });
        expect(refused.json!.error).toMatchObject({ message: expect.stringContaining('must be less than maxOutputTokens (16000; got 20000)') });
      } finally {
        await api.close();
      }
    });
  });
});
