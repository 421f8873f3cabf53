// What a run shows while it runs: the text of the Temporal UI's "current details" and the search attribute
// values. Pure, so it is tested without a server.
import { waitingForBatchText } from './batch.js';
import { formatDuration } from './duration.js';
import { totalTokens } from './transcript.js';
import type { AgentStatusView } from './types.js';

/** Markdown for `setCurrentDetails` (the UI shows it on the workflow page; the limit is 20 KB). */
export function progressDetails(view: AgentStatusView, now: number): string {
  const lines = [
    `**${view.status}** · step ${view.steps} · ${view.toolCalls} tool calls · ${groupThousands(totalTokens(view.usage))} tokens` +
      (view.costUsd !== null ? ` · $${view.costUsd.toFixed(4)}` : ''),
    `last stop reason: ${view.stopReason ?? '—'}${view.guard ? ` · guard: ${view.guard}` : ''}`,
  ];
  if (view.deadlineAt !== null) lines.push(`time left: ${formatDuration(Math.max(0, view.deadlineAt - now))}`);
  if (view.inFlight.length > 0) lines.push(`running: ${view.inFlight.map((c) => c.name).join(', ')}`);
  if (view.waitingForBatch) lines.push(waitingForBatchText(view.waitingForBatch, now));
  if (view.pendingApprovals.length > 0) {
    lines.push(`awaiting approval: ${view.pendingApprovals.map((c) => `${c.name} (${c.toolUseId})`).join(', ')}`);
  }
  for (const q of view.pendingQuestions ?? []) {
    lines.push(`question ${q.id} from MCP server "${q.server}": ${q.message} (\`answer\`) · schema: \`${JSON.stringify(q.requestedSchema).slice(0, 2000)}\``);
  }
  if (view.waitingForMessage) lines.push('waiting for the next message (`send`), or `close`');
  if (view.runsUsed > 1) lines.push(`runs used: ${view.runsUsed} (continue-as-new)`);
  return lines.join('\n\n');
}

/** `n.toLocaleString('en-US')` for an integer (1,234,567), without Intl: the live view is rebuilt on every step of
 * every run, and Intl formatting costs more than the rest of the view. Anything else goes to Intl as before. */
export function groupThousands(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.length > 3 ? digits.slice(0, digits.length % 3 || 3) : digits;
  for (let i = out.length; i < digits.length; i += 3) out += ',' + digits.slice(i, i + 3);
  return n < 0 ? '-' + out : out;
}
