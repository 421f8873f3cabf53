// What a run shows while it runs: the text of the Temporal UI's "current details" and the search attribute
// values. Pure, so it is tested without a server.
import { formatDuration } from './duration.js';
import { totalTokens } from './transcript.js';
import type { AgentStatusView } from './types.js';

/** Markdown for `setCurrentDetails` (the UI shows it on the workflow page; the limit is 20 KB). */
export function progressDetails(view: AgentStatusView, now: number): string {
  const lines = [
    `**${view.status}** · step ${view.steps} · ${view.toolCalls} tool calls · ${totalTokens(view.usage).toLocaleString('en-US')} tokens` +
      (view.costUsd !== null ? ` · $${view.costUsd.toFixed(4)}` : ''),
    `last stop reason: ${view.stopReason ?? '—'}${view.guard ? ` · guard: ${view.guard}` : ''}`,
  ];
  if (view.deadlineAt !== null) lines.push(`time left: ${formatDuration(Math.max(0, view.deadlineAt - now))}`);
  if (view.inFlight.length > 0) lines.push(`running: ${view.inFlight.map((c) => c.name).join(', ')}`);
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
