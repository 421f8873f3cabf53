// streamMessage's idle watch counts bytes, not events: `ping` events (which the SDK never hands to a listener) keep a
// silent-but-alive stream going, real silence abandons it; and calls made one after the other on one client each
// watch their own response (the watched copy of the client is shared, the watch is per call).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamIdleError, streamMessage } from '../../src/activities/stream.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sse = (res: ServerResponse, event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

/** The response to a request whose message is `ping`: six pings 150 ms apart before the reply; `silent`: as long
 * without a byte. */
const PINGS = 6;
const GAP_MS = 150;
let server: Server;
let client: Anthropic;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', async () => {
      const silent = (JSON.parse(body) as { messages: Array<{ content: string }> }).messages[0].content === 'silent';
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 0 } };
      sse(res, 'message_start', { type: 'message_start', message });
      for (let i = 0; i < PINGS; i++) {
        await sleep(GAP_MS);
        if (!silent) sse(res, 'ping', { type: 'ping' });
      }
      if (res.destroyed) return;
      sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'done' } });
      sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
      sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } });
      sse(res, 'message_stop', { type: 'message_stop' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  client = new Anthropic({ apiKey: 'x', baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, maxRetries: 0 });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const call = (content: 'ping' | 'silent') =>
  streamMessage(client, { model: 'm', max_tokens: 10, messages: [{ role: 'user', content }] }, { signal: new AbortController().signal, idleTimeoutMs: 400 });

describe('streamMessage idle timeout', () => {
  it('pings keep a stream alive for longer than the idle timeout; silence as long abandons it; each call watches its own', async () => {
    const kept = await call('ping');
    expect(kept.content).toEqual([expect.objectContaining({ type: 'text', text: 'done' })]);

    await expect(call('silent')).rejects.toBeInstanceOf(StreamIdleError);

    // The same client again, two calls at once: the silent one is abandoned, the pinging one kept.
    const [a, b] = await Promise.allSettled([call('silent'), call('ping')]);
    expect(a.status === 'rejected' && a.reason).toBeInstanceOf(StreamIdleError);
    expect(b.status).toBe('fulfilled');
  }, 20_000);
});
