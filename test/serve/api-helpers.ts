// Shared by the API tests: a `serve()` on the test server with an operate and a read token, and a fetch that
// returns the status and the parsed JSON.
import { serve, type ApiServer } from '../../src/serve/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import type { TestEnv } from '../helpers/harness.js';

export const OPERATE = 'op-token-for-tests';
export const READ = 'read-token-for-tests';
export const auth = (token = OPERATE) => ({ authorization: `Bearer ${token}` });

export async function call(api: ApiServer, method: string, path: string, body?: unknown, headers: Record<string, string> = auth()) {
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


/** `eventsIntervalMs`: how often a followed run is read (100 ms; a test that counts the reads makes it longer than
 * itself, so that only the first read of a feed happens). */
export const openApi = (env: TestEnv, taskQueue: string, bodyLimitBytes?: number, eventsIntervalMs = 100) =>
  serve({ client: env.client, port: 0, tokens: { operate: [OPERATE], read: [READ] }, taskQueue, eventsIntervalMs, bodyLimitBytes, log: () => {} });

/** A model turn that calls the calculator with `id` as its tool_use id. */
export const calc = (id: string) => reply([text('Let me compute.'), toolUse('calculator', { expression: '2 + 2' }, id)]);
