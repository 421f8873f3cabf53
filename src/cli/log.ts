// Everything that is not the command's output goes to stderr, so stdout can be piped. Log lines can carry text
// from outside (an endpoint's error message, a tool's), so control characters are neutralised here too.
import { terminalSafe } from './terminal-text.js';

export function logLine(message: string): void {
  process.stderr.write(`${terminalSafe(message)}\n`);
}

/** `DEBUG=durable-agent` (or `DEBUG=*`, or a list holding either): stack traces for a bug report. */
export function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env.DEBUG ?? '')
    .split(/[\s,]+/)
    .some((name) => name === '*' || name === 'durable-agent' || name === 'durable-agent:*');
}
