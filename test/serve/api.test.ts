// The HTTP API against the shared dev server and a real worker: auth, bad input, idempotent starts, the event
// stream (order, resume after a disconnect, one poller for many subscribers, nothing added to history), and a
// few hundred random requests that never bring it down.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serve, type ApiServer } from '../../src/serve/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';
import { readEvents, type SseEvent } from './sse.js';

const env = useTestEnv();
const OPERATE = 'op-token-for-tests';
const READ = 'read-token-for-tests';
const auth = (token = OPERATE) => ({ authorization: `Bearer ${token}` });

async function call(api: ApiServer, method: string, path: string, body?: unknown, headers: Record<string, string> = auth()) {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const raw = await response.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: response.status, json, raw };
}

const openApi = (taskQueue: string, bodyLimitBytes?: number) =>
  serve({ client: env.client, port: 0, tokens: { operate: [OPERATE], read: [READ] }, taskQueue, eventsIntervalMs: 100, bodyLimitBytes, log: () => {} });

const calc = (id: string) => reply([text('Let me compute.'), toolUse('calculator', { expression: '2 + 2' }, id)]);

describe('auth and bad input', () => {
  let api: ApiServer;
  beforeAll(async () => {
    api = await openApi(`test-${randomUUID()}`, 10_000);
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
    const saved = { ...process.env };
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
      process.env = saved;
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
    const paths = ['/v1/runs', `/v1/runs/${randomUUID()}`, '/v1/runs/%ZZ', '/v1/runs/a/approvals/b', '/v1/runs/x/messages', '/v1/runs/x/resume', '/v1/runs?limit=-1', '/v1/runs?status=zz', '/v1/runs/x/result?wait=abc', '/v1/openapi.json', '/', '/v1/runs/x/events'];
    const bodies = [undefined, '', '{', 'null', '[]', '"x"', '{"task": 5}', '{"task": "x", "maxSteps": 1e309}', '{"task":"x","tools":[1]}', '{"decision":"maybe"}', '{"text": {}}', '{"moreSteps": -1}', '{"__proto__": {"x": 1}}'];
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

describe('runs over HTTP', () => {
  it('a run started twice with one Idempotency-Key starts once; status, transcript and result read it', async () => {
    await withAgent(env, { script: [calc('toolu_a'), reply([text('It is 4.')])] }, async (h) => {
      const api = await openApi(h.taskQueue);
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

  it('the event stream delivers a run’s events in order and, after a disconnect, resumes from Last-Event-ID without losing or repeating one', async () => {
    await withAgent(env, { script: [calc('toolu_b'), reply([text('It is 4.')])] }, async (h) => {
      const api = await openApi(h.taskQueue);
      try {
        const started = await call(api, 'POST', '/v1/runs', { task: 'two plus two', tools: ['calculator'], approve: ['calculator'] });
        const id = started.json!.workflowId as string;
        const url = `${api.url}/v1/runs/${id}/events`;
        // First connection: dropped once the run waits for its approval.
        const first = await readEvents(url, auth(), (es) => es.some((e) => e.event === 'approval_needed'));
        expect((await call(api, 'POST', `/v1/runs/${id}/approvals/toolu_b`, { decision: 'approve' })).json).toEqual({ toolUseId: 'toolu_b', approved: true });
        const second = await readEvents(url, { ...auth(), 'last-event-id': first.at(-1)!.id });
        const seen = [...first, ...second];
        const ids = seen.map((e) => e.id);
        expect(new Set(ids).size).toBe(ids.length);
        const durable = (es: SseEvent[]) => es.filter((e) => e.event !== 'model_text').map((e) => `${e.event} ${e.id}`);
        expect(durable(seen)).toEqual([
          'step 1.1.0',
          'tool_call 1.1.2',
          'approval_needed 2.0.0',
          'tool_result 2.1.1',
          'step 3.1.0',
          'end 4.2.0',
        ]);
        expect(seen.at(-1)!.data).toMatchObject({ status: 'completed', text: 'It is 4.' });
        // A subscriber arriving after the end, on a server that never saw the run live, reads the same
        // transcript events with the same ids (what a reconnect after a server restart gets).
        const other = await openApi(h.taskQueue);
        const late = await readEvents(`${other.url}/v1/runs/${id}/events`, { ...auth(), 'last-event-id': '1.1.2' });
        // One past the end: nothing more to send, and the stream closes rather than hang.
        expect(await readEvents(`${other.url}/v1/runs/${id}/events`, { ...auth(), 'last-event-id': '999.0.0' }, () => false, 10_000)).toEqual([]);
        await other.close();
        expect(durable(late)).toEqual(['tool_result 2.1.1', 'step 3.1.0', 'end 4.2.0']);
      } finally {
        await api.close();
      }
    });
  });

  it('50 concurrent subscribers share one poller and add no event to the run’s history', async () => {
    await withAgent(env, { script: [calc('toolu_c'), reply([text('It is 4.')])] }, async (h) => {
      const api = await openApi(h.taskQueue);
      try {
        const started = await call(api, 'POST', '/v1/runs', { task: 'two plus two', tools: ['calculator'], approve: ['calculator'] });
        const id = started.json!.workflowId as string;
        await readEvents(`${api.url}/v1/runs/${id}/events`, auth(), (es) => es.some((e) => e.event === 'approval_needed'));
        const handle = env.client.workflow.getHandle(id);
        const before = (await handle.describe()).historyLength;
        const reading = Promise.all(
          Array.from({ length: 50 }, () => readEvents(`${api.url}/v1/runs/${id}/events`, auth(), () => false, 30_000, 3_000)),
        );
        // All 50 at once on the one feed of the run.
        await vi.waitFor(() => expect(api.events.stats().map((f) => f.subscribers)).toEqual([50]), { timeout: 2_500, interval: 20 });
        const streams = await reading;
        expect(streams.map((s) => s.some((e) => e.event === 'approval_needed'))).toEqual(Array(50).fill(true));
        const [feed] = api.events.stats();
        expect(api.events.stats()).toHaveLength(1);
        // About one read per 100 ms interval, however many listen: not 50 per interval.
        expect(feed.polls).toBeLessThan(80);
        expect((await handle.describe()).historyLength).toBe(before);
        await call(api, 'POST', `/v1/runs/${id}/approvals/toolu_c`, { decision: 'approve' });
        expect((await call(api, 'GET', `/v1/runs/${id}/result?wait=30s`)).json).toMatchObject({ status: 'completed' });
      } finally {
        await api.close();
      }
    });
  });

  it('steering over HTTP: deny with a reason, a follow-up, cancel, then resume to completion', async () => {
    // The scripted model answers by the turn of the conversation: both runs get these two turns.
    const script = [calc('toolu_d'), reply([text('Done.')])];
    await withAgent(env, { script }, async (h) => {
      const api = await openApi(h.taskQueue);
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

  it('a guard that stops a run is an event before its end', async () => {
    await withAgent(env, { script: [calc('toolu_g'), reply([text('never reached')])] }, async (h) => {
      const api = await openApi(h.taskQueue);
      try {
        const id = (await call(api, 'POST', '/v1/runs', { task: 'two plus two', tools: ['calculator'], maxSteps: 1, summaryOn: ['none'] })).json!.workflowId as string;
        const events = await readEvents(`${api.url}/v1/runs/${id}/events`, auth());
        expect(events.filter((e) => e.event === 'guard' || e.event === 'end').map((e) => [e.event, e.data.guard])).toEqual([
          ['guard', 'max_steps'],
          ['end', 'max_steps'],
        ]);
        expect(events.at(-1)!.data.status).toBe('stopped');
      } finally {
        await api.close();
      }
    });
  });

  it('the words a model call streams arrive as model_text events before the call ends', async () => {
    const words = 'The answer is coming word by word, and it keeps going for quite a while before it ends.';
    await withAgent(env, { script: [{ ...reply([text(words)]), holdAfterEvents: 8 }] }, async (h) => {
      const api = await openApi(h.taskQueue);
      try {
        const id = (await call(api, 'POST', '/v1/runs', { task: 'say it slowly', tools: ['calculator'] })).json!.workflowId as string;
        const early = await readEvents(`${api.url}/v1/runs/${id}/events`, auth(), (es) => es.some((e) => e.event === 'model_text'), 30_000);
        const streamed = early.filter((e) => e.event === 'model_text').map((e) => e.data.delta as string).join('');
        expect(words.startsWith(streamed) && streamed.length > 0).toBe(true);
        expect(early.some((e) => e.event === 'step')).toBe(false); // the call has not ended
        h.model.release();
        expect((await call(api, 'GET', `/v1/runs/${id}/result?wait=30s`)).json).toMatchObject({ status: 'completed', text: words });
      } finally {
        await api.close();
      }
    });
  });
});
