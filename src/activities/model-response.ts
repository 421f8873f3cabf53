// A 200 answer is not always a Messages API message: a proxy's HTML page, a wrong ANTHROPIC_BASE_URL, a stub that
// answers `{}`. Reading `usage.input_tokens` off such a body threw a TypeError that was retried for minutes. The
// check is a pure function, so the streaming and non-streaming paths alike call it on what they got.
import { ApplicationFailure } from '@temporalio/common';

/** Why `body` is not a Messages API message (as the SDK returned it), or null when it is one. */
export function messageShapeProblem(body: unknown): string | null {
  if (typeof body === 'string') {
    const start = body.trimStart().slice(0, 40).replace(/\s+/g, ' ');
    return /^<(!doctype|html)/i.test(start) ? 'an HTML page' : `text, not JSON ("${start}…")`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return `a JSON ${Array.isArray(body) ? 'array' : String(body)}, not a message object`;
  const message = body as Record<string, unknown>;
  const missing: string[] = [];
  if (!Array.isArray(message.content)) missing.push('content');
  const usage = message.usage as Record<string, unknown> | undefined;
  if (typeof usage !== 'object' || usage === null || typeof usage.input_tokens !== 'number' || typeof usage.output_tokens !== 'number') {
    missing.push('usage');
  }
  if (!('stop_reason' in message)) missing.push('stop_reason');
  if (missing.length === 0) return null;
  const keys = Object.keys(message).slice(0, 6);
  return `a JSON object without ${missing.join(', ')} (its keys: ${keys.length > 0 ? keys.join(', ') : 'none'})`;
}

/** What a streamed call got instead of an event stream (a 200 with another content type), or null when it got
 * one. `body` is the response text. */
export function streamResponseProblem(contentType: string | null, body: string): string | null {
  if (/text\/event-stream/i.test(contentType ?? '')) return null;
  let parsed: unknown = body;
  if (/json/i.test(contentType ?? '')) {
    try {
      parsed = JSON.parse(body);
    } catch {
      return `invalid JSON ("${body.trimStart().slice(0, 40)}…")`;
    }
  }
  return messageShapeProblem(parsed) ?? 'a whole JSON message instead of an event stream (it does not stream)';
}

/** Thrown by the streaming call when the endpoint answered 200 with something else than an event stream. */
export class NotMessagesApiError extends Error {
  override name = 'NotMessagesApiError';
  constructor(readonly problem: string) {
    super(`the endpoint did not answer like the Messages API: it sent ${problem}`);
  }
}

/** Not retried: the same endpoint will answer the same way; the fix is the endpoint's address. */
export function notMessagesApiFailure(problem: string, baseURL = 'https://api.anthropic.com'): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'NotMessagesApi',
    nonRetryable: true,
    message:
      `the endpoint ${baseURL} did not answer like the Messages API: it sent ${problem} with status 200; ` +
      'check ANTHROPIC_BASE_URL (it should be the API\'s base URL, without /v1/messages)',
  });
}
