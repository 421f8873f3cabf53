// The scripted model's HTTP plumbing, shared by the Messages route (server.ts) and the Message Batches routes
// (batches.ts): JSON answers and the API's error shape, and its authentication rule.
import type { IncomingMessage, ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function sendError(res: ServerResponse, requestId: string, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  const body = { type: 'error', error: { type, message }, request_id: requestId };
  sendJson(res, status, body, { ...headers, 'request-id': requestId });
}

/** The API's rule: a key in `x-api-key`, or a bearer token. */
export function isAuthenticated(req: IncomingMessage): boolean {
  const auth = req.headers.authorization;
  return !!req.headers['x-api-key'] || (typeof auth === 'string' && /^Bearer\s+\S/.test(auth));
}
