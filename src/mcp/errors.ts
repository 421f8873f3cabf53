// What went wrong with an MCP server, in one line: the SDK's own messages are a transport's, and an answer that is
// not valid MCP comes as a schema library's error whose message is its issues as pretty-printed JSON (16 lines).
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

interface SchemaIssue {
  path: PropertyKey[];
  message: string;
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
  if (!first) return `its answer is not valid MCP: ${oneLine(err.message)}`;
  const where = Array.isArray(first.path) && first.path.length > 0 ? `${first.path.map(String).join('.')}: ` : '';
  const more = rest.length > 0 ? ` (and ${rest.length} more problem${rest.length === 1 ? '' : 's'})` : '';
  return `its answer is not valid MCP: ${where}${oneLine(first.message)}${more}`;
}

export function messageOf(err: unknown): string {
  if (err instanceof StreamableHTTPError && err.code !== undefined && err.code > 0) return `HTTP ${err.code}: ${err.message}`;
  if (isInvalidAnswer(err)) return invalidAnswerText(err);
  return err instanceof Error ? oneLine(err.message) : String(err);
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

/** The stdio transport's error when a server's message outgrows its read buffer (the SDK then closes the session). */
export function isReadLimit(err: unknown): boolean {
  return err instanceof Error && /ReadBuffer exceeded maximum size/.test(err.message);
}
