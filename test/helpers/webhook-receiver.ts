// A webhook receiver for tests: a local HTTP server that records every delivery (headers and raw body) and answers
// as `answer` says for the n-th request (a status, or 'hold' to keep the request open until `release()`).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  /** Answers every request held so far with 200. */
  release(): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(answer: (n: number, delivery: Delivery) => number | 'hold' = () => 200): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const delivery = { headers: req.headers, body, path: req.url ?? '/' };
      deliveries.push(delivery);
      const a = answer(deliveries.length, delivery);
      if (a === 'hold') held.push(res);
      else res.writeHead(a, { 'content-type': 'text/plain' }).end(a < 300 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    deliveries,
    release() {
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end('ok');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sets the workers' DURABLE_AGENT_WEBHOOK_SECRET for the test file (in-process workers read it at each delivery),
 * and puts back what was there after it. */
export function useWebhookSecret(secret: string): void {
  let saved: string | undefined;
  beforeAll(() => {
    saved = process.env.DURABLE_AGENT_WEBHOOK_SECRET;
    process.env.DURABLE_AGENT_WEBHOOK_SECRET = secret;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.DURABLE_AGENT_WEBHOOK_SECRET;
    else process.env.DURABLE_AGENT_WEBHOOK_SECRET = saved;
  });
}
