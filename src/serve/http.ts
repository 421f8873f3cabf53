// Reading a request and answering with an error, for every route of the HTTP API (app.ts, run-routes.ts): a JSON
// body, an object body of known fields, a whole-number query, and the one error object `{ "error": { ... } }`.
import type { Context } from 'hono';
import { RequestError } from './run-request.js';

export async function jsonBody(c: Context, optional = false): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) {
    if (optional) return {};
    throw new RequestError('the body is empty: send a JSON object');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new RequestError(`the body is not valid JSON: ${(err as Error).message.split('\n')[0]}`);
  }
}

export function objectBody(body: unknown, fields: string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RequestError('the body must be a JSON object');
  const unknown = Object.keys(body).find((k) => !fields.includes(k));
  if (unknown !== undefined) throw new RequestError(`unknown field "${unknown}" (fields: ${fields.join(', ')})`, unknown);
  return body as Record<string, unknown>;
}

export function intQuery(c: Context, name: string, fallback: number, min: number, max: number): number {
  const raw = c.req.query(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new RequestError(`${name} must be a whole number from ${min} to ${max} (got "${raw.slice(0, 20)}")`, name);
  return n;
}

export function fail(c: Context, status: number, type: string, message: string, field?: string): Response {
  return c.json({ error: { type, message, ...(field ? { field } : {}) } }, status as 400);
}
