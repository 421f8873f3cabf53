// Reading runs: `status` (live state, or the server's record when no worker answers), `transcript` (the whole
// conversation) and `list` (recent runs from visibility). `watch` is in watch.ts.
import type { RunSummary, StatusReport } from '../../client/index.js';
import { agentClient } from '../lazy-client.js';
import { compactionLine, type CompactionBlock } from '../../core/compaction.js';
import { formatDuration } from '../../core/duration.js';
import { waitingForBatchText } from '../../core/batch.js';
import { oneLine } from '../../core/transcript.js';
import { forkedFromLine, lastForkableStep, transcriptBeforeStep } from '../../core/fork.js';
import { childRows, childRuns } from '../sub-agents-view.js';
import { AGENT_STATUSES, TERMINAL_STATUSES, type AgentStatusView, type CompactionRecord, type ForkOrigin, type ContentBlockParam, type MessageParam, type ToolCallView } from '../../core/types.js';
import { expectPositionals, UsageError, type FlagSpec, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import {
  blocksOf,
  callText,
  indent,
  modelCallText,
  plural,
  serverToolText,
  timeText,
  tokensText,
  toolCallProgressText,
  toolResultText,
} from '../format.js';
import { logLine } from '../log.js';
import { printJson, printText } from '../output.js';
import { stopWaitingOnSignal } from '../stop-waiting.js';
import { withTemporal } from '../temporal.js';

// ---------------------------------------------------------------------------------------------------------------
// status

const JSON_FLAG = { json: { type: 'boolean', help: 'print exactly one JSON document' } } satisfies Record<string, FlagSpec>;

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

// ---------------------------------------------------------------------------------------------------------------
// transcript

export const transcript = defineCommand({
  usage: 'transcript <workflowId> [--json]',
  description: `The whole conversation of a run (across continue-as-new), one block per message; with --json, the
array of messages (usable as a test fixture). Needs no worker: a closed run is read from its history.`,
  flags: JSON_FLAG,
  examples: ['transcript agent-search-for-the-population-of-fra-s9aiw3', 'transcript nightly-report --json > messages.json'],
  run: transcriptCommand,
});

async function transcriptCommand({ flags, positionals }: Parsed<typeof JSON_FLAG>): Promise<number> {
  const [workflowId] = expectPositionals(positionals, ['workflowId'], 'transcript <workflowId> [--json]');
  return withTemporal(async (temporal) => {
    const { getStatus, getTranscript } = await agentClient();
    const messages = await getTranscript(temporal.client, workflowId);
    if (flags.json) printJson(messages);
    else {
      // What each compaction did is in the run's state, not in its block: read it when there is one.
      // And a fork's origin (which messages it reused) in its state too.
      const view = (await getStatus(temporal.client, workflowId).catch(() => null))?.view;
      printText(formatTranscript(messages, view?.compactionLog ?? [], workflowId, view?.forkedFrom));
    }
    return 0;
  });
}

/** One block per message: the role, then each content block on its own line(s). A compaction is one line; a
 * delegation (`agent__*`) names its child run (`transcript <childId>` shows the child's own conversation), given the
 * run's `workflowId`. */
export function formatTranscript(
  messages: readonly MessageParam[],
  compactions: readonly CompactionRecord[] = [],
  workflowId?: string,
  forkedFrom?: ForkOrigin,
): string {
  const names = toolNames(messages);
  const children = workflowId ? childRuns(messages, workflowId) : new Map<string, string>();
  // A client-side compaction has no block: its line comes before the first message it does not replace.
  const clientLines = (i: number) =>
    compactions.filter((c) => c.clientSide && c.messageIndex === i).map((c) => `${compactionLine(c, { type: 'compaction', content: null })}\n`);
  // A fork's reused steps are marked as such: the messages before its first live step came from its source.
  const reused = forkedFrom ? transcriptBeforeStep(messages, Math.min(forkedFrom.step, lastForkableStep(messages))).length : 0;
  const forkLines = (i: number) =>
    !forkedFrom || forkedFrom.step === 1
      ? []
      : i === 0
        ? [`── reused: steps 1–${forkedFrom.step - 1} of ${forkedFrom.workflowId}, as recorded (not run again) ──\n`]
        : i === reused
          ? [`── live: from step ${forkedFrom.step} (${forkedFromLine(forkedFrom)}) ──\n`]
          : [];
  const lines = messages.map((m, i) => {
    const record = compactions.find((c) => !c.clientSide && c.messageIndex === i);
    const body = blocksOf(m.content)
      .map((b) => ((b.type as string) === 'compaction' ? compactionLine(record, b as unknown as CompactionBlock) : blockText(b, names, children)))
      .join('\n');
    return [...clientLines(i), ...forkLines(i), `── ${i + 1}. ${m.role} ──\n${body}\n`].join('\n');
  });
  return [...lines, ...clientLines(messages.length)].join('\n');
}

function blockText(block: ContentBlockParam, names: Map<string, string>, children: Map<string, string>): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'thinking':
      return '[thinking]';
    case 'redacted_thinking':
      return '[redacted thinking]';
    case 'tool_use': {
      const child = children.has(block.id) ? `\n  → child run ${children.get(block.id)}` : '';
      return `[tool_use ${block.name}] ${JSON.stringify(block.input)}  (${block.id})${child}`;
    }
    case 'tool_result': {
      const name = names.get(block.tool_use_id);
      const head = `[tool_result${name ? ` ${name}` : ''}${block.is_error ? ' ERROR' : ''}] (${block.tool_use_id})`;
      const content = toolResultText(block.content);
      return content.includes('\n') ? `${head}\n${indent(content)}` : `${head} ${content}`;
    }
    default: {
      const server = serverToolText(block as unknown as { type: string } & Record<string, unknown>);
      if (server && block.type === 'server_tool_use') return `[server_tool_use] ${server}  (${block.id})`;
      if (server) return `[${block.type}] ${server}`;
      return `[${block.type}] ${oneLine(JSON.stringify(block), 300)}`;
    }
  }
}

/** tool_use id → tool name, so a result can say which tool it answers. */
function toolNames(messages: readonly MessageParam[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) for (const b of blocksOf(m.content)) if (b.type === 'tool_use') names.set(b.id, b.name);
  return names;
}

// ---------------------------------------------------------------------------------------------------------------
// list

const LIST_FLAGS = {
  status: {
    type: 'string',
    choices: AGENT_STATUSES,
    value: 'S',
    help: `only runs with this status: ${AGENT_STATUSES.join(', ')} (terminated and timed_out: as the server closed them)`,
  },
  limit: { type: 'int', min: 1, max: 10_000, help: 'at most N runs, newest first (default 20; with --schedule or --batch, 1000)' },
  schedule: { type: 'string', value: 'NAME', help: 'only the runs this schedule started (schedule create)' },
  batch: { type: 'string', value: 'NAME', help: 'only the runs of this task batch (start --tasks)' },
  ...JSON_FLAG,
} satisfies Record<string, FlagSpec>;

export const list = defineCommand({
  usage: 'list [--status S] [--schedule NAME] [--batch NAME] [--limit N] [--json]',
  description: `Recent runs from the server's visibility store, with their search attributes as columns. The earlier
runs of an id (continue-as-new, resume, temporal workflow reset) are marked "(earlier run)". A SCHEDULE or BATCH
column appears when a run listed came from a schedule or a task batch.`,
  flags: LIST_FLAGS,
  examples: ['list', 'list --status awaiting_approval --limit 5', 'list --schedule nightly-triage', 'list --batch issues --status failed'],
  run: listCommand,
});

async function listCommand({ flags, positionals }: Parsed<typeof LIST_FLAGS>): Promise<number> {
  expectPositionals(positionals, [], 'list [--status S] [--schedule NAME] [--batch NAME] [--limit N] [--json]');
  for (const f of ['schedule', 'batch'] as const) {
    if (flags[f] !== undefined && !/^[\w.@-]{1,100}$/.test(flags[f])) throw new UsageError(`--${f}: "${flags[f].slice(0, 60)}" is not a ${f} name (letters, digits and . _ @ -)`);
  }
  const { schedule, batch } = flags;
  return withTemporal(async (temporal) => {
    const { listRuns } = await agentClient();
    const limit = flags.limit ?? (schedule || batch ? 1000 : 20);
    const runs = await listRuns(temporal.client, { status: flags.status, limit, schedule, batch });
    if (flags.json) printJson(runs);
    else printText(formatList(runs));
    const of = [schedule ? ` started by schedule ${schedule}` : '', batch ? ` in batch ${batch}` : '', flags.status ? ` with AgentStatus ${flags.status}` : ''].join('');
    if (!flags.json && runs.length === 0) logLine(`no runs${of}`);
    return 0;
  });
}

/** Columns shown only when some run has a value: a versioned worker's build id (a Worker Deployment version), a
 * sub-agent's parent run, the schedule or the task batch a run came from. */
const OPTIONAL_COLUMNS: ReadonlyArray<[string, (r: RunSummary) => string | undefined]> = [
  ['BUILD ID', (r) => r.buildId],
  ['PARENT', (r) => r.parentWorkflowId],
  ['SCHEDULE', (r) => r.schedule],
  ['BATCH', (r) => r.taskBatch],
];

export function formatList(runs: readonly RunSummary[]): string {
  const optional = OPTIONAL_COLUMNS.filter(([, cell]) => runs.some(cell));
  const header = ['WORKFLOW ID', 'STATUS', 'STEPS', 'TOKENS', 'COST', 'STOP REASON', 'GUARD', 'STARTED', ...optional.map(([name]) => name)];
  const rows = runs.map((r) => {
    const a = r.attributes;
    const status = `${statusCell(r)}${r.current ? '' : ' (earlier run)'}`;
    return [
      r.workflowId,
      status,
      a.steps !== undefined ? String(a.steps) : '—',
      a.tokens !== undefined ? a.tokens.toLocaleString('en-US') : '—',
      a.costUsd !== undefined ? `$${a.costUsd.toFixed(4)}` : '—',
      a.stopReason ?? '—',
      a.guard ?? '—',
      timeText(r.startTime),
      ...optional.map(([, cell]) => cell(r) ?? '—'),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 2 || i === 3 || i === 4 ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [header, ...rows].map(line).join('\n') + '\n';
}

/** The run's status as the workflow last published it, unless the server closed the run without the workflow
 * saying so (terminated, timed out) or the run went on in another (continue-as-new). */
function statusCell(r: RunSummary): string {
  const byServer: Record<string, string> = { TERMINATED: 'terminated', TIMED_OUT: 'timed_out', CONTINUED_AS_NEW: 'continued as new' };
  if (byServer[r.executionStatus]) return byServer[r.executionStatus];
  const a = r.attributes;
  const closedUnsaid = r.executionStatus !== 'RUNNING' && (!a.status || !TERMINAL_STATUSES.includes(a.status));
  return (a.status ?? '—') + (closedUnsaid ? ` (${r.executionStatus})` : '');
}
