// The tree of a run that delegates, as `status` and `transcript` show it: its child runs (one line each) and, in
// the transcript, the child run each `agent__*` call started (`transcript <childId>` shows its own conversation).
import { childWorkflowId, isAgentTool } from '../core/sub-agents.js';
import type { ChildRunRecord, MessageParam } from '../core/types.js';
import { blocksOf, plural, tokensText, toolResultText } from './format.js';

export /** The child runs of the run's sub-agents: id, agent, status, steps, cost; one line each. */
function childRows(children: ChildRunRecord[] | undefined, row: (label: string, value: string) => void, lines: string[]): void {
  if (!children || children.length === 0) return;
  const running = children.filter((c) => c.status === 'running').length;
  row('children', `${children.length}${running ? ` (${running} running)` : ''}`);
  for (const c of children) {
    const cost = c.costUsd === null ? 'cost unknown' : `$${c.costUsd.toFixed(4)}`;
    lines.push(`  ${c.workflowId}  ${c.agent}  ${c.status}  ${plural(c.steps, 'model call')}  ${tokensText(c.usage)}  ${cost}`);
  }
}

export /** tool_use id → the child run of each `agent__*` call that started one: every call whose result is not an error,
 * or is one naming its child (a child that failed); a call refused before any child started names none. */
function childRuns(messages: readonly MessageParam[], workflowId: string): Map<string, string> {
  const results = new Map<string, { isError: boolean; text: string }>();
  for (const m of messages) {
    for (const b of blocksOf(m.content)) {
      if (b.type === 'tool_result') results.set(b.tool_use_id, { isError: !!b.is_error, text: toolResultText(b.content) });
    }
  }
  const children = new Map<string, string>();
  for (const m of messages) {
    for (const b of blocksOf(m.content)) {
      if (b.type !== 'tool_use' || !isAgentTool(b.name)) continue;
      const id = childWorkflowId(workflowId, b.id);
      const result = results.get(b.id);
      if (!result || !result.isError || result.text.includes(id)) children.set(b.id, id);
    }
  }
  return children;
}

