// Runs over the HTTP API with a real worker: an idempotent start, reading a run, and steering it (deny, a
// follow-up, cancel, resume).
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { describe, expect, it, vi } from 'vitest';
import { getStatus } from '../../src/client/index.js';
import { serve } from '../../src/serve/index.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { builtinTools } from '../../src/tools/registry.js';
import { defineTool } from '../../src/tools/types.js';
import { eventually, startRun, useSharedAgent, useTestEnv } from '../helpers/harness.js';
import { readEvents } from './sse.js';
import { auth, calc, call, OPERATE, openApi } from './api-helpers.js';

const env = useTestEnv();
/** A tool whose every call waits for a person's decision. */
const deploy = defineTool<{ target: string }>({
  name: 'deploy',
  description: 'deploys to a target',
  inputSchema: { type: 'object', properties: { target: { type: 'string' } }, required: ['target'] },
  needsApproval: true,
  execute: async ({ target }) => `deployed to ${target}`,
});
// One worker for all the file's tests, with a sub-agent that deploys.
const agents = useSharedAgent(env, {
  tools: [...builtinTools, deploy],
  agents: { deployer: { description: 'Deploys.', system: 'You are the deployer.', tools: ['deploy'], maxSteps: 5 } },
});

describe('runs over HTTP', () => {
  it('a run started twice with one Idempotency-Key starts once; status, transcript and result read it', async () => {
    await agents.with({ script: [calc('toolu_a'), reply([text('It is 4.')])] }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const key = { ...auth(), 'idempotency-key': `key-${randomUUID()}` };
        const body = { task: 'two plus two', tools: ['calculator'], maxSteps: 5 };
        const [a, b] = await Promise.all([call(api, 'POST', '/v1/runs', body, key), call(api, 'POST', '/v1/runs', body, key)]);
        expect([a.status, b.status].sort()).toEqual([200, 201]);
        expect(a.json?.workflowId).toBe(b.json?.workflowId);
        expect(a.json?.runId).toBe(b.json?.runId);
        const id = a.json!.workflowId as string;
        const result = await call(api, 'GET', `/v1/runs/${id}/result?wait=30s`);
        expect(result).toMatchObject({ status: 200, json: { status: 'completed', text: 'It is 4.', toolCalls: 1 } });
        // Once: the scripted model answered exactly the run's two turns.
        expect(h.model.requests.filter((r) => r.status === 200)).toHaveLength(2);
        const again = await call(api, 'POST', '/v1/runs', body, key);
        expect(again).toMatchObject({ status: 200, json: { workflowId: id, attached: true } });
        expect((await call(api, 'GET', `/v1/runs/${id}/transcript`)).json?.messages).toHaveLength(4);
        expect((await call(api, 'GET', `/v1/runs/${id}`)).json).toMatchObject({ view: { status: 'completed', steps: 2 } });
      } finally {
        await api.close();
      }
    });
  });


  it('steering over HTTP: deny with a reason, a follow-up, cancel, then resume to completion', async () => {
    // The scripted model answers by the turn of the conversation: both runs get these two turns.
    const script = [calc('toolu_d'), reply([text('Done.')])];
    await agents.with({ script }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const body = { task: 'two plus two', tools: ['calculator'], approve: ['calculator'] };
        const denied = (await call(api, 'POST', '/v1/runs', body)).json!.workflowId as string;
        await readEvents(`${api.url}/v1/runs/${denied}/events`, auth(), (es) => es.some((e) => e.event === 'approval_needed'));
        const bad = await call(api, 'POST', `/v1/runs/${denied}/approvals/toolu_nope`, { decision: 'deny', reason: 'no' });
        expect(bad).toMatchObject({ status: 409, json: { error: { type: 'conflict', message: expect.stringMatching(/no tool call toolu_nope is waiting/) } } });
        expect((await call(api, 'POST', `/v1/runs/${denied}/approvals/toolu_d`, { decision: 'deny', reason: 'not today' })).json).toEqual({
          toolUseId: 'toolu_d',
          approved: false,
        });
        expect((await call(api, 'GET', `/v1/runs/${denied}/result?wait=30s`)).json).toMatchObject({ status: 'completed', toolCalls: 0 });

        const cancelled = (await call(api, 'POST', '/v1/runs', body)).json!.workflowId as string;
        await readEvents(`${api.url}/v1/runs/${cancelled}/events`, auth(), (es) => es.some((e) => e.event === 'approval_needed'));
        expect(await call(api, 'POST', `/v1/runs/${cancelled}/messages`, { text: 'take your time' })).toMatchObject({ status: 202 });
        expect((await call(api, 'POST', `/v1/runs/${cancelled}/resume`, {})).status).toBe(409); // still running
        expect((await call(api, 'POST', `/v1/runs/${cancelled}/cancel`)).status).toBe(202);
        expect((await call(api, 'GET', `/v1/runs/${cancelled}/result?wait=30s`)).json).toMatchObject({ status: 'cancelled' });
        expect(await call(api, 'POST', `/v1/runs/${cancelled}/resume`, { moreSteps: 3, approve: true })).toMatchObject({
          status: 400,
          json: { error: { field: 'approve' } },
        });
        expect((await call(api, 'POST', `/v1/runs/${cancelled}/resume`, { moreSteps: 3 })).status).toBe(201);
        // The resumed run goes on from its transcript: the model's next turn ends it.
        expect((await call(api, 'GET', `/v1/runs/${cancelled}/result?wait=30s`)).json).toMatchObject({ status: 'completed', text: 'Done.', runsUsed: 2 });
      } finally {
        await api.close();
      }
    });
  });

  it("a sub-agent's child run (id `<parent>/<toolUseId>`) is read and steered by its id, URL-encoded: its waiting call approved", async () => {
    const systemOf = (r: { system?: unknown }) => (typeof r.system === 'string' ? r.system : JSON.stringify(r.system ?? ''));
    const script: Script = (req, turn) => {
      if (systemOf(req).includes('deployer')) return turn === 0 ? reply([toolUse('deploy', { target: 'prod' }, 'toolu_dep')]) : reply([text('Deployed to prod.')]);
      return turn === 0 ? reply([toolUse('agent__deployer', { task: 'deploy to prod' }, 'toolu_kid')]) : reply([text('The deployer deployed.')]);
    };
    await agents.with({ script }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const parent = await startRun(h, 'ship it', { tools: ['agent__deployer'] });
        const child = `${parent}/toolu_kid`;
        await eventually(() => getStatus(env.client, child), (s) => s.view?.status === 'awaiting_approval', 20_000);
        const path = `/v1/runs/${encodeURIComponent(child)}`;
        expect(await call(api, 'GET', path)).toMatchObject({ status: 200, json: { view: { status: 'awaiting_approval' } } });
        expect(await call(api, 'POST', `${path}/approvals/toolu_dep`, { decision: 'approve' })).toMatchObject({
          status: 200,
          json: { toolUseId: 'toolu_dep', approved: true },
        });
        expect((await call(api, 'GET', `/v1/runs/${parent}/result?wait=30s`)).json).toMatchObject({ status: 'completed', text: 'The deployer deployed.' });
        expect((await call(api, 'GET', `${path}/result`)).json).toMatchObject({ status: 'completed', text: 'Deployed to prod.' });
      } finally {
        await api.close();
      }
    });
  });

  it('a steering request waiting for a worker (none polls the queue) does not hold close(): the server closes, the request ends', async () => {
    const taskQueue = `no-worker-${randomUUID()}`;
    const id = await startRun({ env, taskQueue }, 'nobody takes this run');
    // The API's client, whose interceptor says when the request's update has gone to the server.
    let updates = 0;
    const client = new Client({
      connection: env.client.connection,
      dataConverter: env.dataConverter,
      interceptors: { workflow: [{ startUpdate: (input, next) => (updates++, next(input)) }] },
    });
    const logged: string[] = [];
    const api = await serve({ client, port: 0, tokens: { operate: [OPERATE], read: [] }, taskQueue, log: (line) => logged.push(line) });
    try {
      const sent = call(api, 'POST', `/v1/runs/${id}/messages`, { text: 'hello?' }).catch((err: unknown) => err);
      await vi.waitFor(() => expect(updates).toBe(1));
      await api.close();
      await sent;
      expect(logged).toEqual([]); // the request ended with the server: no failure to report
    } finally {
      await env.client.workflow.getHandle(id).terminate('test cleanup');
    }
  });
});
