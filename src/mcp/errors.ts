// What went wrong with an MCP server, in one line, and which failures a call waits out by reconnecting: the SDK's own
// messages are a transport's, and an answer that is not valid MCP comes as a schema library's error whose message is its
// issues as pretty-printed JSON (16 lines).
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { oneLine } from '../core/transcript.js';

interface SchemaIssue {
  path: PropertyKey[];
  message: string;
}

/** The server could not be reached, or went away during a call: an infrastructure failure, which Temporal
 * retries (on a fresh session), and which names the server once the retries are spent. */
export class McpServerUnavailable extends Error {
  override name = 'McpServerUnavailable';
  constructor(server: string, cause: unknown) {
    super(`MCP server "${server}" is unavailable: ${messageOf(cause)}`, { cause });
  }
}

/** The server answered a call with something that is not a valid MCP result: its session was restarted (a retry
 * gets a fresh one), and the call fails as an infrastructure failure, which Temporal retries. */
export class McpBadAnswer extends Error {
  override name = 'McpBadAnswer';
}

/** The server did not answer a call before the call's timeout: its session was restarted (a retry gets a fresh one),
 * and the call fails as an infrastructure failure, which Temporal retries. */
export class McpNoAnswer extends Error {
  override name = 'McpNoAnswer';
}

/** Whether a failure means the server is away (waited out by reconnecting) rather than refusing us: an HTTP 4xx
 * other than 404 (the server forgot the session) is an answer, and the same request would get it again. */
export function reconnectable(cause: unknown): boolean {
  if (cause instanceof StreamableHTTPError && cause.code !== undefined && cause.code >= 400 && cause.code < 500) return cause.code === 404;
  return !(cause instanceof Error && cause.message === 'the worker is shutting down');
}

/** A Temporal activity's cancellation because it timed out (the worker learns it at a heartbeat: NOT_FOUND). */
export function timedOut(reason: unknown): boolean {
  return reason instanceof Error && (reason.message === 'TIMED_OUT' || reason.message === 'NOT_FOUND');
}

/** An answer that failed the SDK's check of its shape (a zod error: `$ZodError`, or `ZodError` in zod 3). */
export function isInvalidAnswer(err: unknown): err is Error {
  return err instanceof Error && /^\$?ZodError$/.test(err.name);
}

/** The issues of a zod error: a property of it, else (zod 4's core error) its message as JSON. */
function issuesOf(err: Error): SchemaIssue[] {
  const issues = (err as { issues?: unknown }).issues;
  if (Array.isArray(issues)) return issues as SchemaIssue[];
  try {
    const parsed: unknown = JSON.parse(err.message);
    return Array.isArray(parsed) ? (parsed as SchemaIssue[]) : [];
  } catch {
    return [];
  }
}

/** `tools.3.inputSchema.type: Invalid input: expected "object" (and 2 more problems)`. */
export function invalidAnswerText(err: Error): string {
  const [first, ...rest] = issuesOf(err);
  if (!first) return `its answer is not valid MCP: ${oneLine(err.message, Infinity)}`;
  const where = Array.isArray(first.path) && first.path.length > 0 ? `${first.path.map(String).join('.')}: ` : '';
  const more = rest.length > 0 ? ` (and ${rest.length} more problem${rest.length === 1 ? '' : 's'})` : '';
  return `its answer is not valid MCP: ${where}${oneLine(first.message, Infinity)}${more}`;
}

export function messageOf(err: unknown): string {
  if (err instanceof StreamableHTTPError && err.code !== undefined && err.code > 0) return `HTTP ${err.code}: ${err.message}`;
  if (isInvalidAnswer(err)) return invalidAnswerText(err);
  return err instanceof Error ? oneLine(err.message, Infinity) : String(err);
}

/** The stdio transport's error when a server's message outgrows its read buffer (the SDK then closes the session). */
export function isReadLimit(err: unknown): boolean {
  return err instanceof Error && /ReadBuffer exceeded maximum size/.test(err.message);
}
