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
