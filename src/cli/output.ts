// What the CLI prints (a result, text for a person, JSON for a program), the exit code that goes with it, and
// the exit itself, which waits until everything printed has reached the reader.
import type { FlagSpec } from '../core/args.js';
import { totalTokens } from '../core/transcript.js';
import type { AgentResult, RunStatus } from '../core/types.js';
import { terminalSafe } from './terminal-text.js';

export const JSON_FLAG = { json: { type: 'boolean', help: 'print exactly one JSON document' } } satisfies Record<string, FlagSpec>;

export const EXIT = {
  completed: 0,
  failed: 1,
  usage: 2,
  stopped: 3,
  cancelled: 4,
  /** An operator terminated the run, or a workflow timeout closed it: a failure as far as the job goes. */
  terminated: 1,
  timed_out: 1,
  detached: 130,
} as const;

export function exitCodeFor(status: RunStatus): number {
  return EXIT[status];
}

/** Text for a person on stdout: model and tool text in it cannot drive the terminal. */
export function printText(text: string): void {
  process.stdout.write(terminalSafe(text));
}

/** Exactly one JSON document on stdout, byte-exact (JSON escapes control characters itself). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A result as `run`, `result` and `watch` print it. */
export function printResult(result: AgentResult, json: boolean): void {
  if (json) printJson(result);
  else printText(formatResult(result, false));
}

/** The answer, then one line a person can read. With --json: exactly one JSON document. */
export function formatResult(result: AgentResult, json: boolean): string {
  if (json) return `${JSON.stringify(result, null, 2)}\n`;
  const parts = [
    `${result.steps} model call${result.steps === 1 ? '' : 's'}`,
    `${result.toolCalls} tool call${result.toolCalls === 1 ? '' : 's'}`,
    `${totalTokens(result.usage).toLocaleString('en-US')} tokens`,
  ];
  // Server tool requests, billed (web search) or not, once a run used them.
  const searches = result.usage.server_tool_use?.web_search_requests ?? 0;
  const fetches = result.usage.server_tool_use?.web_fetch_requests ?? 0;
  if (searches > 0) parts.push(`${searches} web search${searches === 1 ? '' : 'es'}`);
  if (fetches > 0) parts.push(`${fetches} web fetch${fetches === 1 ? '' : 'es'}`);
  const why = result.guard ? ` by guard ${result.guard}` : result.stopReason ? ` on ${result.stopReason}` : '';
  const answer = result.text || '(no answer text)';
  const error = result.error ? `\nerror: ${result.error}` : '';
  const partial = result.status === 'stopped' && result.text ? ' (partial answer)' : '';
  return `${answer}\n${error}\n— ${result.status}${why}${partial} · ${parts.join(' · ')} · ${result.workflowId}\n`;
}

/** Resolves once everything written to `stream` so far has been handed to the reader (or the reader is gone).
 * A pipe takes 64 KB at a time: the rest waits in the stream's buffer, and `process.exit` would drop it. */
export function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableLength === 0) return Promise.resolve();
  // Writes complete in order: the callback of an empty write runs after every earlier one (or with an error,
  // such as EPIPE when the reader closed early: then there is nothing left to wait for either).
  return new Promise((resolve) => stream.write('', () => resolve()));
}

/** Exits with `code` once stdout and stderr have been flushed. */
export async function exitWhenFlushed(code: number): Promise<never> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
}
