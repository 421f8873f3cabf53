// What the CLI prints for a result, and the exit code that goes with it.
import { totalTokens } from '../core/transcript.js';
import type { AgentResult, RunStatus } from '../core/types.js';

export const EXIT = {
  completed: 0,
  failed: 1,
  usage: 2,
  stopped: 3,
  cancelled: 4,
  detached: 130,
} as const;

export function exitCodeFor(status: RunStatus): number {
  return EXIT[status];
}

/** The answer, then one line a person can read. With --json: exactly one JSON document. */
export function formatResult(result: AgentResult, json: boolean): string {
  if (json) return `${JSON.stringify(result, null, 2)}\n`;
  const parts = [
    `${result.steps} model call${result.steps === 1 ? '' : 's'}`,
    `${result.toolCalls} tool call${result.toolCalls === 1 ? '' : 's'}`,
    `${totalTokens(result.usage).toLocaleString('en-US')} tokens`,
  ];
  const why = result.guard ? ` by guard ${result.guard}` : result.stopReason ? ` on ${result.stopReason}` : '';
  const answer = result.text || '(no answer text)';
  const error = result.error ? `\nerror: ${result.error}` : '';
  const partial = result.status === 'stopped' && result.text ? ' (partial answer)' : '';
  return `${answer}\n${error}\n— ${result.status}${why}${partial} · ${parts.join(' · ')} · ${result.workflowId}\n`;
}
