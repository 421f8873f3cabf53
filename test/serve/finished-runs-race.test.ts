// A steering request for a run that ends between the server's check and its call: the call finds no open run
// (WorkflowNotFoundError), and the answer is still the 409 naming the run's status, not a 404 for a run that exists.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { createApi } from '../../src/serve/app.js';
import { EventHub } from '../../src/serve/events.js';
import { AGENT_WORKFLOW } from '../../src/workflows/definitions.js';

/** A run that is RUNNING at the first describe and COMPLETED at every later one; its update and cancel find it gone. */
function endingRun(): Client {
  let described = 0;
  const gone = () => Promise.reject(new WorkflowNotFoundError('workflow execution already completed', 'run-7', undefined));
  const handle = {
    describe: async () => ({ type: AGENT_WORKFLOW, status: { name: described++ === 0 ? 'RUNNING' : 'COMPLETED' } }),
    executeUpdate: gone,
    cancel: gone,
  };
  return { workflow: { getHandle: () => handle }, withAbortSignal: <R>(_signal: AbortSignal, fn: () => Promise<R>) => fn() } as unknown as Client;
}

const post = (path: string, body?: unknown) => {
  const client = endingRun();
  return createApi({ client, hub: new EventHub(client), taskQueue: 'q', settings: () => Promise.reject(new Error('unused')), log: () => {} }).request(path, {
    method: 'POST',
    headers: { host: '127.0.0.1:8787', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
};

describe('a run that ends while it is being steered', () => {
  it.each([
    ['send a message to', '/v1/runs/run-7/messages', { text: 'hi' }],
    ['cancel', '/v1/runs/run-7/cancel', undefined],
    ['approve', '/v1/runs/run-7/approvals/toolu_1', { decision: 'approve' }],
    ['answer a question of', '/v1/runs/run-7/answers', { action: 'cancel' }],
  ])('%s: 409 run_ended with the status it ended with', async (what, path, body) => {
    const r = await post(path, body);
    expect(r.status).toBe(409);
    expect(await r.json()).toEqual({ error: { type: 'run_ended', message: `cannot ${what} run run-7: it has ended (COMPLETED)` } });
  });
});
