// The API's error answers without a server behind it: what escapes a route is one JSON error, never a stack.
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { InvalidSettingsError } from '../../src/core/settings-check.js';
import { createApi } from '../../src/serve/app.js';
import { EventHub } from '../../src/serve/events.js';

const client = {} as Client;
const post = (settings: () => Promise<never>) =>
  createApi({ client, hub: new EventHub(client), taskQueue: 'q', settings, log: () => {} }).request('/v1/runs', {
    method: 'POST',
    headers: { host: '127.0.0.1:8787', 'content-type': 'application/json' },
    body: JSON.stringify({ task: 'x' }),
  });

describe('createApi error answers', () => {
  it('the library’s settings check is a 400 naming the setting', async () => {
    const r = await post(() => Promise.reject(new InvalidSettingsError('heartbeatTimeoutMs', 'must be at least 1000 (got 5)')));
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({
      error: { type: 'invalid_request', field: 'heartbeatTimeoutMs', message: 'invalid settings: heartbeatTimeoutMs must be at least 1000 (got 5)' },
    });
  });

  it('an unexpected error is a 500 with its first line only', async () => {
    const r = await post(() => Promise.reject(new Error('the server went away\n    at secret (/srv/app.js:1:1)')));
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual({ error: { type: 'internal', message: 'the request failed: the server went away' } });
  });
});

describe('createApi without a token (--insecure-no-auth, loopback)', () => {
  const api = (c: Client = client) => createApi({ client: c, hub: new EventHub(c), taskQueue: 'q', settings: () => Promise.reject(new Error('unused')), log: () => {} });

  it('refuses a request for a host other than this machine (DNS rebinding) and a POST that is not JSON (a cross-site form)', async () => {
    const rebound = await api().request('/v1/runs', { headers: { host: 'attacker.example:8787' } });
    expect(rebound.status).toBe(403);
    expect(((await rebound.json()) as { error: { message: string } }).error.message).toMatch(/loopback host \(got Host "attacker.example"\)/);
    const form = await api().request('/v1/runs', { method: 'POST', headers: { host: '127.0.0.1:8787', 'content-type': 'text/plain' }, body: '{"task":"x"}' });
    expect(form.status).toBe(415);
  });

  it('answers 404 for a workflow of the namespace that is not an agent run', async () => {
    const teamWorkflow = { workflow: { getHandle: () => ({ describe: async () => ({ type: 'invoiceWorkflow', status: { name: 'COMPLETED' } }) }) } } as unknown as Client;
    const r = await api(teamWorkflow).request('/v1/runs/invoice-42/result', { headers: { host: 'localhost:8787' } });
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/not an agent run/);
  });
});
