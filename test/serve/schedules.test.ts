// Schedules over HTTP (/v1/schedules) with a real worker: create, trigger, the runs found by GET /v1/runs?schedule=,
// pause, delete; a bad body is 400 naming the field, an unknown schedule 404, a name taken 409.
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { reply, text } from '../../src/scripted/index.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';
import { call, openApi } from './api-helpers.js';

const env = useTestEnv();

describe('schedules over HTTP', () => {
  it('POST /v1/schedules stores the task and settings; a trigger starts a run GET /v1/runs?schedule= finds; pause, delete', async () => {
    await withAgent(env, { script: [reply([text('Digest sent.')])] }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      const name = `http-${randomUUID().slice(0, 8)}`;
      try {
        // Once a year and paused: only the trigger fires it during the test.
        const created = await call(api, 'POST', '/v1/schedules', { name, cron: '0 9 1 1 *', paused: true, task: 'Send the digest', tools: ['calculator'], maxSteps: 4 });
        expect(created).toMatchObject({ status: 201, json: { name, spec: 'cron 0 9 1 1 *', paused: true, task: 'Send the digest', settings: { maxSteps: 4, tools: ['calculator'] } } });
        expect((await call(api, 'GET', '/v1/schedules')).json?.schedules).toEqual(expect.arrayContaining([expect.objectContaining({ name })]));
        expect(await call(api, 'POST', `/v1/schedules/${name}/trigger`)).toMatchObject({ status: 202, json: { name, triggered: true } });
        await vi.waitFor(
          async () => {
            const runs = (await call(api, 'GET', `/v1/runs?schedule=${name}`)).json?.runs as Array<{ workflowId: string; schedule: string; attributes: { status: string } }>;
            expect(runs).toHaveLength(1);
            expect(runs[0]).toMatchObject({ schedule: name, attributes: { status: 'completed' } });
            expect(runs[0].workflowId.startsWith(`${name}-`)).toBe(true);
          },
          { timeout: 60_000, interval: 500 },
        );
        expect(await call(api, 'POST', `/v1/schedules/${name}/unpause`, { note: 'go' })).toMatchObject({ status: 200 });
        expect(await call(api, 'POST', `/v1/schedules/${name}/pause`, { note: 'hold' })).toMatchObject({ status: 200 });
        expect((await call(api, 'GET', `/v1/schedules/${name}`)).json).toMatchObject({ paused: true, note: 'hold', runsStarted: 1 });
        expect(await call(api, 'POST', '/v1/schedules', { name, every: '1h', task: 'again' })).toMatchObject({ status: 409, json: { error: { type: 'conflict' } } });
        expect(await call(api, 'DELETE', `/v1/schedules/${name}`)).toMatchObject({ status: 200, json: { name, deleted: true } });
        expect(await call(api, 'GET', `/v1/schedules/${name}`)).toMatchObject({ status: 404, json: { error: { type: 'not_found' } } });
      } finally {
        await env.client.schedule.getHandle(name).delete().catch(() => undefined);
        await api.close();
      }
    });
  });

  it('a bad schedule body is 400 naming the field, and nothing is created', async () => {
    const api = await openApi(env, `q-${randomUUID()}`);
    try {
      const bad = async (body: unknown, field: string | undefined, message: RegExp) => {
        const r = await call(api, 'POST', '/v1/schedules', body);
        expect(r.status).toBe(400);
        expect((r.json?.error as { message: string }).message).toMatch(message);
        if (field) expect((r.json?.error as { field?: string }).field).toBe(field);
      };
      await bad({ every: '1h', task: 'x' }, 'name', /name: the schedule's name is required/);
      await bad({ name: 'x', task: 'x' }, undefined, /give either a cron expression or an interval/);
      await bad({ name: 'x', every: 'soon', task: 'x' }, undefined, /every: invalid duration "soon"/);
      await bad({ name: 'x', every: '1h', task: 'x', maxSteps: 0 }, 'maxSteps', /maxSteps must be at least 1/);
      await bad({ name: 'x', every: '1h', task: 'x', maxStep: 3 }, 'maxStep', /unknown field "maxStep" \(did you mean "maxSteps"\?\)/);
      await bad({ name: 'x', every: '1h', task: 'x', priority: 2 }, 'priority', /take no priority/);
      await bad({ name: 'x', every: '1h', task: 'x', overlap: 'sometimes' }, 'overlap', /overlap must be one of skip/);
      expect((await call(api, 'GET', `/v1/runs?schedule=${encodeURIComponent("x' OR 1=1")}`)).status).toBe(400);
      await expect(env.client.schedule.getHandle('x').describe()).rejects.toThrow();
    } finally {
      await api.close();
    }
  });
});
