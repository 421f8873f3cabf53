// The HTTP API's front door, against the shared dev server: tokens and roles, CORS, bad input (400 naming the
// field, 404, 413), and a few hundred random requests that never bring it down.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type ApiServer } from '../../src/serve/index.js';
import { useTestEnv } from '../helpers/harness.js';
import { auth, call, OPERATE, openApi, READ } from './api-helpers.js';

const env = useTestEnv();

describe('auth and bad input', () => {
  let api: ApiServer;
  beforeAll(async () => {
    api = await openApi(env, `test-${randomUUID()}`, 10_000);
  });
  afterAll(() => api.close());

  it('answers 401 without a token or with an unknown one, 403 to a read token on a write route, and lets a read token read', async () => {
    expect(await call(api, 'GET', '/v1/runs', undefined, {})).toMatchObject({ status: 401, json: { error: { type: 'unauthorized' } } });
    expect((await call(api, 'GET', '/v1/runs', undefined, auth('nope'))).status).toBe(401);
    const write = await call(api, 'POST', '/v1/runs', { task: 'x' }, auth(READ));
    expect(write).toMatchObject({ status: 403, json: { error: { type: 'forbidden' } } });
    expect((await call(api, 'GET', '/v1/runs?limit=1', undefined, auth(READ))).status).toBe(200);
  });

  it('refuses to start without a token, and without auth anywhere but 127.0.0.1', async () => {
    // The variables put back one by one, not process.env replaced by a copy: it is the object the CLI's commands in
    // this test process read their own environment through (test/helpers/cli-in-process.ts).
    const saved = { DURABLE_AGENT_API_TOKEN: process.env.DURABLE_AGENT_API_TOKEN, DURABLE_AGENT_API_READ_TOKEN: process.env.DURABLE_AGENT_API_READ_TOKEN };
    delete process.env.DURABLE_AGENT_API_TOKEN;
    delete process.env.DURABLE_AGENT_API_READ_TOKEN;
    try {
      await expect(serve({ client: env.client, port: 0 })).rejects.toThrow(/no API token: set DURABLE_AGENT_API_TOKEN/);
      await expect(serve({ client: env.client, port: 0, host: '0.0.0.0', insecureNoAuth: true })).rejects.toThrow(
        /--insecure-no-auth is only allowed with --host 127.0.0.1/,
      );
      const open = await serve({ client: env.client, port: 0, insecureNoAuth: true });
      expect((await call(open, 'GET', '/v1/runs?limit=1', undefined, {})).status).toBe(200);
      await open.close();
    } finally {
      for (const [key, value] of Object.entries(saved)) if (value !== undefined) process.env[key] = value;
    }
  });

  it('answers a bad body with 400 and a message naming the field', async () => {
    const bad = async (body: unknown) => (await call(api, 'POST', '/v1/runs', body)).json as { error: { type: string; message: string; field?: string } };
    expect(await bad({ task: 'x', maxSteps: 'ten' })).toEqual({
      error: { type: 'invalid_request', field: 'maxSteps', message: 'maxSteps must be a whole number (got "ten")' },
    });
    expect((await bad({ task: 'x', maxSteps: 0 })).error).toMatchObject({ field: 'maxSteps', message: 'maxSteps must be at least 1 (got 0)' });
    expect((await bad({ task: 'x', maxStep: 3 })).error.message).toBe('unknown field "maxStep" (did you mean "maxSteps"?)');
    expect((await bad({ task: 'x', tools: ['calculator'], approve: ['web_search'] })).error).toMatchObject({
      field: 'approve',
      message: expect.stringMatching(/^approve names "web_search", which the run may not use/),
    });
    expect((await bad({ maxSteps: 3 })).error).toMatchObject({ field: 'task' });
    expect((await bad('{"task": ')).error.message).toMatch(/^the body is not valid JSON/);
    const response = await call(api, 'POST', '/v1/runs', { task: 'x', maxSteps: 'ten' });
    expect(response.status).toBe(400);
    expect(response.raw).not.toMatch(/\bat .*\.(ts|js):\d+/);
  });

  it('answers 404 for an unknown run on every run route, and for an unknown route', async () => {
    const id = `no-such-run-${randomUUID()}`;
    for (const [method, path, body] of [
      ['GET', `/v1/runs/${id}`],
      ['GET', `/v1/runs/${id}/transcript`],
      ['GET', `/v1/runs/${id}/result`],
      ['GET', `/v1/runs/${id}/events`],
      ['POST', `/v1/runs/${id}/approvals/toolu_1`, { decision: 'approve' }],
      ['POST', `/v1/runs/${id}/messages`, { text: 'hi' }],
      ['POST', `/v1/runs/${id}/cancel`],
      ['POST', `/v1/runs/${id}/resume`],
    ] as const) {
      const r = await call(api, method, path, body);
      expect({ path, status: r.status, type: (r.json?.error as { type?: string })?.type }).toEqual({ path, status: 404, type: 'not_found' });
    }
    expect((await call(api, 'GET', '/v2/nothing')).status).toBe(404);
  });

  it('keeps CORS closed unless --allow-origin names the origin', async () => {
    const origin = 'https://console.example.com';
    const closed = await fetch(`${api.url}/v1/runs?limit=1`, { headers: { ...auth(), origin } });
    expect(closed.headers.get('access-control-allow-origin')).toBeNull();
    const open = await serve({ client: env.client, port: 0, tokens: { operate: [OPERATE], read: [] }, allowOrigins: [origin] });
    try {
      const preflight = await fetch(`${open.url}/v1/runs`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
      expect(preflight.status).toBeLessThan(300);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
      const other = await fetch(`${open.url}/v1/runs?limit=1`, { headers: { ...auth(), origin: 'https://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).not.toBe('https://evil.example');
    } finally {
      await open.close();
    }
  });

  it('answers a body over the limit with 413', async () => {
    const r = await call(api, 'POST', '/v1/runs', { task: 'x'.repeat(20_000) });
    expect(r).toMatchObject({ status: 413, json: { error: { type: 'too_large' } } });
  });

  it('survives a few hundred random requests: each answered with JSON and a status below 500, and it still serves', async () => {
    let seed = 22;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const pick = <T>(xs: readonly T[]) => xs[rand(xs.length)];
    const junk = () => String.fromCharCode(...Array.from({ length: rand(40) }, () => rand(0x2fff)));
    const paths = ['/v1/runs', `/v1/runs/${randomUUID()}`, '/v1/runs/%ZZ', '/v1/runs/a/approvals/b', '/v1/runs/x/messages', '/v1/runs/x/resume', '/v1/runs?limit=-1', '/v1/runs?status=zz', '/v1/runs/x/result?wait=abc', '/v1/openapi.json', '/', '/v1/runs/x/events', '/v1/runs/x/usage'];
    const bodies = [undefined, '', '{', 'null', '[]', '"x"', '{"task": 5}', '{"task": "x", "maxSteps": 1e309}', '{"task":"x","tools":[1]}', '{"decision":"maybe"}', '{"text": {}}', '{"moreSteps": -1}', '{"__proto__": {"x": 1}}', '{"task":"x","webhook":"ftp://h"}', '{"task":"x","webhook":[1]}', '{"task":"x","webhook":["https://u:p@h/"]}'];
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) {
      const method = pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']);
      const body = method === 'GET' ? undefined : rand(4) === 0 ? junk() : pick(bodies);
      const headers: Record<string, string> = rand(5) === 0 ? {} : rand(6) === 0 ? { authorization: `Bearer ${junk()}`.replace(/[^\x20-\x7e]/g, 'x') } : auth();
      if (rand(4) === 0) headers['last-event-id'] = pick(['0.1.2', 'junk', '9999999999.0.0']);
      const r = await call(api, method, pick(paths) + (rand(3) === 0 ? `/${encodeURIComponent(junk())}` : ''), body, headers);
      statuses.push(r.status);
      expect({ i, status: r.status < 500, json: r.json !== undefined || r.status === 200 }).toEqual({ i, status: true, json: true });
    }
    expect(new Set(statuses).size).toBeGreaterThan(3);
    expect((await call(api, 'GET', '/v1/runs?limit=1')).status).toBe(200);
  });
});
