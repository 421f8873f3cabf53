// `status`: the state of a run, live from its worker, or what its history (else the server's record) holds when no
// worker answers. `transcript` and `list` are in transcript.ts and list.ts, `watch` in watch.ts.
import type { StatusReport } from '../../client/index.js';
import { agentClient } from '../lazy-client.js';
import { formatDuration } from '../../core/duration.js';
import { waitingForBatchText } from '../../core/batch.js';
import { oneLine } from '../../core/transcript.js';
import { forkedFromLine } from '../../core/fork.js';
import { childRows } from '../sub-agents-view.js';
import { TERMINAL_STATUSES, type AgentStatusView, type ForkOrigin, type ToolCallView } from '../../core/types.js';
import { expectPositionals, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { callText, indent, modelCallText, plural, timeText, tokensText, toolCallProgressText } from '../format.js';
import { logLine } from '../log.js';
import { JSON_FLAG, printJson, printText } from '../output.js';
import { stopWaitingOnSignal } from '../stop-waiting.js';
import { withTemporal } from '../temporal.js';

export const status = defineCommand({
  usage: 'status <workflowId> [--json]',
  description: `The state of a run: status, model, steps, tokens, cost, last stop reason, guard, tools in flight,
pending approvals, runs used, time left, last assistant text. Works for any run, running or closed, with no worker:
a closed run (or a running one no worker answers for within 3 s) is read from its history. A run terminated or
timed out says so, with the operator's reason.`,
  flags: JSON_FLAG,
  examples: ['status agent-search-for-the-population-of-fra-s9aiw3', 'status nightly-report --json'],
  run: statusCommand,
});

function statusCommand({ flags, positionals }: Parsed<typeof JSON_FLAG>): Promise<number> {
  const [workflowId] = expectPositionals(positionals, ['workflowId'], 'status <workflowId> [--json]');
  return stopWaitingOnSignal(workflowId, `status ${workflowId}${flags.json ? ' --json' : ''}`, () => statusOf(workflowId, flags.json ?? false));
}

/** `status`: the run's live state, or what its history holds when no worker answers. */
function statusOf(workflowId: string, json: boolean): Promise<number> {
  return withTemporal(async (temporal) => {
    const { getStatus } = await agentClient();
    const report = await getStatus(temporal.client, workflowId);
    if (!report.live && report.executionStatus === 'RUNNING') {
      logLine(
        `note: ${report.reason}: ${report.view ? 'showing the state recorded in its history' : 'showing the server\'s record'}.` +
          (report.workerBusy ? '' : ' Is a worker running on its task queue? (`worker`)'),
      );
    } else if (!report.live && !report.view) {
      logLine(`warning: ${report.reason}. \`result ${workflowId}\` prints its outcome.`);
    }
    if (json) printJson(report);
    else printText(formatStatus(report, Date.now()));
    return 0;
  });
}

/** A fork's origin, and its reused steps apart from its live ones. */
function forkRows(origin: ForkOrigin, row: (label: string, value: string) => void): void {
  row('forked', forkedFromLine(origin));
  const cost = origin.reusedCostUsd === null ? 'cost unknown' : `$${origin.reusedCostUsd.toFixed(4)}`;
  const last = origin.step - 1;
  const steps = last === 0 ? 'none' : last === 1 ? 'step 1' : `steps 1–${last}`;
  row('reused', `${steps} · ${plural(origin.reusedToolCalls, 'tool call')} not run again · ${tokensText(origin.reusedUsage)} · ${cost} (not in the budget)`);
}

/** The readable form of a status report: one `label: value` line per fact. */
export function formatStatus(report: StatusReport, now: number): string {
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`${`${label}:`.padEnd(19)}${value}`);
  const v = report.view;
  if (v) {
    lines.push(`${v.workflowId} · run ${v.runId}`);
    if (!report.live) lines.push(`(read from the run's history: ${report.reason})`);
    row('status', v.status + (v.waitingForMessage ? ' (waiting for the next message: `send` or `close`)' : ''));
    if (!report.live && report.endedByServer) {
      const by = report.endedByServer.identity ? ` (by ${report.endedByServer.identity})` : '';
      row(report.endedByServer.status === 'terminated' ? 'terminated' : 'timed out', report.endedByServer.reason + by);
    }
    if (v.forkedFrom) forkRows(v.forkedFrom, row);
    row('model', v.model);
    row('steps', `${plural(v.steps, 'model call')} · ${plural(v.toolCalls, 'tool call')}${v.forkedFrom ? ' (live)' : ''}`);
    row('tokens', tokensText(v.usage));
    row('cost', v.costUsd === null ? 'unknown (no price for this model)' : `$${v.costUsd.toFixed(4)}`);
    row('last stop reason', v.stopReason ?? '— (no model call has completed)');
    row('guard', v.guard ?? 'none');
    row('in flight', v.inFlight.length === 0 ? 'none' : v.inFlight.map(callText).join('; '));
    if (v.waitingForBatch) row('model call', waitingForBatchText(v.waitingForBatch, now));
    toolCallRows(report, v.inFlight, lines, now);
    modelCallRows(report, row, lines);
    if (v.pendingApprovals.length === 0) row('pending approvals', 'none');
    else {
      row('pending approvals', String(v.pendingApprovals.length));
      for (const call of v.pendingApprovals) {
        lines.push(`  ${call.toolUseId}  ${call.name} ${oneLine(JSON.stringify(call.input) ?? 'null', 300)}`);
      }
      const id = v.pendingApprovals.length === 1 ? '' : ' <toolUseId>';
      lines.push(`  decide with: approve ${v.workflowId}${id}  |  deny ${v.workflowId}${id} --reason TEXT`);
    }
    for (const q of v.pendingQuestions ?? []) {
      row('question', `${q.id} from MCP server "${q.server}" (${q.toolUseId}): ${oneLine(q.message, 300)}`);
      lines.push(`  schema: ${oneLine(JSON.stringify(q.requestedSchema), 500)}`);
      lines.push(`  answer with: answer ${v.workflowId} ${q.id} --json '{...}'  |  --decline  |  --cancel`);
    }
    childRows(v.children, row, lines);
    row('runs used', String(v.runsUsed));
    if (v.compactions !== undefined) {
      const prompt = v.promptTokens ? ` · prompt now ${v.promptTokens.toLocaleString('en-US')} tokens` : '';
      row('compactions', `${v.compactions}${prompt}`);
    }
    row('time left', timeLeft(v, now));
    row('messages', String(v.messages));
    lines.push('last assistant text:');
    lines.push(v.lastText ? indent(v.lastText) : '  (none yet)');
  } else if (!report.live) {
    const a = report.attributes;
    lines.push(`${report.workflowId} · run ${report.runId}`);
    lines.push(`details unavailable: ${report.reason}`);
    lines.push('  (what follows is the server\'s record of the run: its description and search attributes)');
    row('execution', report.executionStatus);
    row('started', timeText(report.startTime));
    if (report.closeTime) row('closed', timeText(report.closeTime));
    row('history events', String(report.historyLength));
    row('status', a.status ?? '— (search attributes not set)');
    if (a.model) row('model', a.model);
    if (a.steps !== undefined) row('steps', plural(a.steps, 'model call'));
    if (a.tokens !== undefined) row('tokens', a.tokens.toLocaleString('en-US'));
    if (a.costUsd !== undefined) row('cost', `$${a.costUsd.toFixed(4)}`);
    row('last stop reason', a.stopReason ?? '—');
    row('guard', a.guard ?? 'none');
    modelCallRows(report, row, lines);
  }
  return `${lines.join('\n')}\n`;
}

/** Each tool call in flight with its attempt, time, timeout and latest progress (from its heartbeat details). */
function toolCallRows(report: StatusReport, views: ToolCallView[], lines: string[], now: number): void {
  const shown = new Set<string>();
  for (const view of views) {
    const call = report.toolCalls.find((c) => c.toolUseId === view.toolUseId);
    if (call) shown.add(call.activityId);
    const text = toolCallProgressText(call, view, now);
    if (text) lines.push(`  ${view.name} (${view.toolUseId}): ${text}`);
  }
  // Calls the view does not list (read from history, or not yet heartbeated): shown by their activity.
  for (const call of report.toolCalls.filter((c) => !shown.has(c.activityId))) {
    lines.push(`  tool call ${call.toolUseId ?? `(activity ${call.activityId})`}: ${toolCallProgressText(call, undefined, now)}`);
  }
}

/** The model call in flight and its words so far (from its heartbeat details). */
function modelCallRows(report: StatusReport, row: (label: string, value: string) => void, lines: string[]): void {
  for (const call of report.modelCalls) {
    const { line, words } = modelCallText(call);
    row('model call', line);
    if (words) lines.push(`  "${words}"`);
  }
}

function timeLeft(v: AgentStatusView, now: number): string {
  if (v.deadlineAt === null) return 'no deadline';
  const left = v.deadlineAt - now;
  const at = timeText(new Date(v.deadlineAt));
  if (TERMINAL_STATUSES.includes(v.status)) return `— (the run has ended; deadline was ${at})`;
  return left > 0 ? `${formatDuration(left)} (deadline ${at})` : `none: the deadline ${at} has passed`;
}
