// Reading runs: `status` (live state, or the server's record when no worker answers), `transcript` (the whole
// conversation), `watch` (follow a run step by step until it ends) and `list` (recent runs from visibility).
import { getAgentResult, getStatus, getTranscript, listRuns, type RunSummary, type StatusReport } from '../../client/index.js';
import { QUERY_TIMEOUT_MS } from '../../client/inspect.js';
import { formatDuration } from '../../core/duration.js';
import { oneLine, totalTokens } from '../../core/transcript.js';
import type { AgentStatusView, ContentBlockParam, MessageParam, RunStatus, ToolCallView, Usage } from '../../core/types.js';
import { expectPositionals, parseArgs } from '../args.js';
import { logLine } from '../log.js';
import { exitCodeFor, formatResult } from '../output.js';
import { openTemporal } from '../temporal.js';

const TERMINAL: readonly string[] = ['completed', 'stopped', 'failed', 'cancelled'] satisfies RunStatus[];
const AGENT_STATUSES = ['running', 'awaiting_approval', ...TERMINAL] as const;

// ---------------------------------------------------------------------------------------------------------------
// status

export async function statusCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, { json: { type: 'boolean' } });
  const [workflowId] = expectPositionals(positionals, ['workflowId'], 'status <workflowId> [--json]');
  const temporal = await openTemporal({ allowEmbedded: false });
  try {
    const report = await getStatus(temporal.client, workflowId);
    if (!report.live) {
      logLine(
        `warning: live details unavailable for ${workflowId}: ${report.reason}. ` +
          (report.executionStatus === 'RUNNING'
            ? 'Is a worker running on its task queue? (`worker`)'
            : 'The run has ended; `result` prints its outcome.'),
      );
    }
    process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatStatus(report, Date.now()));
    return 0;
  } finally {
    await temporal.close();
  }
}

/** The readable form of a status report: one `label: value` line per fact. */
export function formatStatus(report: StatusReport, now: number): string {
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`${`${label}:`.padEnd(19)}${value}`);
  if (report.live) {
    const v = report.view;
    lines.push(`${v.workflowId} · run ${v.runId}`);
    row('status', v.status + (v.waitingForMessage ? ' (waiting for the next message: `send` or `close`)' : ''));
    row('model', v.model);
    row('steps', `${plural(v.steps, 'model call')} · ${plural(v.toolCalls, 'tool call')}`);
    row('tokens', tokensText(v.usage));
    row('cost', v.costUsd === null ? 'unknown (no price for this model)' : `$${v.costUsd.toFixed(4)}`);
    row('last stop reason', v.stopReason ?? '— (no model call has completed)');
    row('guard', v.guard ?? 'none');
    row('in flight', v.inFlight.length === 0 ? 'none' : v.inFlight.map(callText).join('; '));
    if (v.pendingApprovals.length === 0) row('pending approvals', 'none');
    else {
      row('pending approvals', String(v.pendingApprovals.length));
      for (const call of v.pendingApprovals) {
        lines.push(`  ${call.toolUseId}  ${call.name} ${oneLine(JSON.stringify(call.input) ?? 'null', 300)}`);
      }
      const id = v.pendingApprovals.length === 1 ? '' : ' <toolUseId>';
      lines.push(`  decide with: approve ${v.workflowId}${id}  |  deny ${v.workflowId}${id} --reason TEXT`);
    }
    row('runs used', String(v.runsUsed));
    row('time left', timeLeft(v, now));
    row('messages', String(v.messages));
    lines.push('last assistant text:');
    lines.push(v.lastText ? indent(v.lastText) : '  (none yet)');
  } else {
    const a = report.attributes;
    lines.push(`${report.workflowId} · run ${report.runId}`);
    lines.push(`live details unavailable: ${report.reason}`);
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
  }
  return `${lines.join('\n')}\n`;
}

function timeLeft(v: AgentStatusView, now: number): string {
  if (v.deadlineAt === null) return 'no deadline';
  const left = v.deadlineAt - now;
  const at = timeText(new Date(v.deadlineAt));
  if (TERMINAL.includes(v.status)) return `— (the run has ended; deadline was ${at})`;
  return left > 0 ? `${formatDuration(left)} (deadline ${at})` : `none: the deadline ${at} has passed`;
}

// ---------------------------------------------------------------------------------------------------------------
// transcript

export async function transcriptCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, { json: { type: 'boolean' } });
  const [workflowId] = expectPositionals(positionals, ['workflowId'], 'transcript <workflowId> [--json]');
  const temporal = await openTemporal({ allowEmbedded: false });
  try {
    const messages = await getTranscript(temporal.client, workflowId);
    process.stdout.write(flags.json ? `${JSON.stringify(messages, null, 2)}\n` : formatTranscript(messages));
    return 0;
  } finally {
    await temporal.close();
  }
}

/** One block per message: the role, then each content block on its own line(s). */
export function formatTranscript(messages: readonly MessageParam[]): string {
  const names = toolNames(messages);
  return messages
    .map((m, i) => {
      const body = blocksOf(m.content).map((b) => blockText(b, names)).join('\n');
      return `── ${i + 1}. ${m.role} ──\n${body}\n`;
    })
    .join('\n');
}

function blockText(block: ContentBlockParam, names: Map<string, string>): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'thinking':
      return '[thinking]';
    case 'redacted_thinking':
      return '[redacted thinking]';
    case 'tool_use':
      return `[tool_use ${block.name}] ${JSON.stringify(block.input)}  (${block.id})`;
    case 'tool_result': {
      const name = names.get(block.tool_use_id);
      const head = `[tool_result${name ? ` ${name}` : ''}${block.is_error ? ' ERROR' : ''}] (${block.tool_use_id})`;
      const content = toolResultText(block.content);
      return content.includes('\n') ? `${head}\n${indent(content)}` : `${head} ${content}`;
    }
    default:
      return `[${block.type}] ${oneLine(JSON.stringify(block), 300)}`;
  }
}

function toolResultText(content: Extract<ContentBlockParam, { type: 'tool_result' }>['content']): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

function blocksOf(content: MessageParam['content']): ContentBlockParam[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** tool_use id → tool name, so a result can say which tool it answers. */
function toolNames(messages: readonly MessageParam[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const m of messages) for (const b of blocksOf(m.content)) if (b.type === 'tool_use') names.set(b.id, b.name);
  return names;
}

// ---------------------------------------------------------------------------------------------------------------
// watch

const WATCH_INTERVAL_MS = 500;

export async function watchCommand(argv: string[]): Promise<number> {
  const { positionals } = parseArgs(argv, {});
  const [workflowId] = expectPositionals(positionals, ['workflowId'], 'watch <workflowId>');
  const temporal = await openTemporal({ allowEmbedded: false });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const watcher = new Watcher(workflowId, out);
    let offline = false;
    for (;;) {
      const report = await getStatus(temporal.client, workflowId, QUERY_TIMEOUT_MS);
      if (!report.live) {
        if (report.executionStatus !== 'RUNNING') {
          if (!offline) logLine(`live details unavailable (${report.reason}): the steps of the ended run are not shown`);
          break;
        }
        if (!offline) {
          logLine(`waiting: live details unavailable (${report.reason}); is a worker running on the run's task queue?`);
          offline = true;
        }
        await sleep(WATCH_INTERVAL_MS);
        continue;
      }
      if (offline) logLine('a worker answers again: following the run');
      offline = false;
      const view = report.view;
      if (view.messages > watcher.printed) {
        try {
          watcher.messages(await getTranscript(temporal.client, workflowId), view);
        } catch (err) {
          logLine(`could not read the transcript yet: ${(err as Error).message}`);
        }
      }
      watcher.status(view);
      if (TERMINAL.includes(view.status)) break;
      await sleep(WATCH_INTERVAL_MS);
    }
    const result = await getAgentResult(temporal.client, workflowId);
    process.stdout.write(formatResult(result, false));
    return exitCodeFor(result.status);
  } finally {
    await temporal.close();
  }
}

/** Turns successive status views and transcripts into one line per event, each printed once. */
class Watcher {
  printed = 0;
  #steps = 0;
  #tokens = 0;
  readonly #names = new Map<string, string>();
  readonly #approvals = new Set<string>();
  #guard: string | null = null;
  #waiting = false;

  constructor(
    readonly workflowId: string,
    readonly out: (line: string) => void,
  ) {}

  /** Prints the messages the status view counts that were not printed yet (a later transcript may hold more:
   * those wait for the view that counts them, so a step line and its tokens agree). */
  messages(all: readonly MessageParam[], view: AgentStatusView): void {
    const upTo = Math.min(view.messages, all.length);
    const fresh = all.slice(this.printed, upTo);
    const freshSteps = fresh.filter((m) => m.role === 'assistant').length;
    for (let i = this.printed; i < upTo; i++) {
      const m = all[i];
      const blocks = blocksOf(m.content);
      if (m.role === 'assistant') {
        this.#steps++;
        const isLatest = this.#steps === view.steps;
        const stopReason = isLatest && view.stopReason ? view.stopReason : blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
        let tokens = '';
        if (isLatest) {
          const total = totalTokens(view.usage);
          tokens =
            freshSteps === 1
              ? ` · ${(total - this.#tokens).toLocaleString('en-US')} tokens (${total.toLocaleString('en-US')} in all)`
              : ` · ${total.toLocaleString('en-US')} tokens in all`;
          this.#tokens = total;
        }
        this.out(`step ${this.#steps} · model call · ${stopReason}${tokens}`);
        for (const b of blocks) {
          if (b.type === 'text' && b.text.trim()) this.out(`  ${oneLine(b.text, 200)}`);
          else if (b.type === 'thinking' || b.type === 'redacted_thinking') this.out('  [thinking]');
          else if (b.type === 'tool_use') {
            this.#names.set(b.id, b.name);
            this.out(`  → ${b.name} ${oneLine(JSON.stringify(b.input) ?? '', 200)}  (${b.id})`);
          }
        }
      } else {
        for (const b of blocks) {
          if (b.type === 'tool_result') {
            const name = this.#names.get(b.tool_use_id) ?? b.tool_use_id;
            const text = oneLine(toolResultText(b.content), 160);
            this.out(`  ← ${name}${b.is_error ? ' ERROR' : ''}: ${text}`);
          } else if (b.type === 'text') {
            this.out(i === 0 ? `task: ${oneLine(b.text, 200)}` : `user: ${oneLine(b.text, 200)}`);
          }
        }
      }
    }
    this.printed = upTo;
  }

  status(view: AgentStatusView): void {
    for (const call of view.pendingApprovals) {
      if (this.#approvals.has(call.toolUseId)) continue;
      this.#approvals.add(call.toolUseId);
      this.out(
        `awaiting approval: ${callText(call)} — approve ${this.workflowId} ${call.toolUseId}  |  deny ${this.workflowId} ${call.toolUseId} --reason TEXT`,
      );
    }
    if (view.guard && view.guard !== this.#guard) {
      this.#guard = view.guard;
      this.out(`guard ${view.guard} stopped the run`);
    }
    if (view.waitingForMessage && !this.#waiting) {
      this.out(`waiting for the next message: send ${this.workflowId} "<text>"  |  close ${this.workflowId}`);
    }
    this.#waiting = view.waitingForMessage;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// list

export async function listCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, {
    status: { type: 'string', choices: AGENT_STATUSES },
    limit: { type: 'int', min: 1, max: 10_000 },
    json: { type: 'boolean' },
  });
  expectPositionals(positionals, [], 'list [--status S] [--limit N] [--json]');
  const temporal = await openTemporal({ allowEmbedded: false });
  try {
    const runs = await listRuns(temporal.client, { status: flags.status, limit: flags.limit ?? 20 });
    process.stdout.write(flags.json ? `${JSON.stringify(runs, null, 2)}\n` : formatList(runs));
    if (!flags.json && runs.length === 0) logLine(flags.status ? `no runs with AgentStatus ${flags.status}` : 'no runs');
    return 0;
  } finally {
    await temporal.close();
  }
}

export function formatList(runs: readonly RunSummary[]): string {
  const header = ['WORKFLOW ID', 'STATUS', 'STEPS', 'TOKENS', 'COST', 'STOP REASON', 'GUARD', 'STARTED'];
  const rows = runs.map((r) => {
    const a = r.attributes;
    // A run that ended without the workflow saying so (terminated, timed out) keeps its last AgentStatus.
    const closedUnsaid = r.executionStatus !== 'RUNNING' && (!a.status || !TERMINAL.includes(a.status));
    const status = (a.status ?? '—') + (closedUnsaid ? ` (${r.executionStatus})` : '');
    return [
      r.workflowId,
      status,
      a.steps !== undefined ? String(a.steps) : '—',
      a.tokens !== undefined ? a.tokens.toLocaleString('en-US') : '—',
      a.costUsd !== undefined ? `$${a.costUsd.toFixed(4)}` : '—',
      a.stopReason ?? '—',
      a.guard ?? '—',
      timeText(r.startTime),
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

// ---------------------------------------------------------------------------------------------------------------

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function tokensText(u: Usage): string {
  const f = (n: number) => n.toLocaleString('en-US');
  return (
    `${f(totalTokens(u))} (input ${f(u.input_tokens)} · output ${f(u.output_tokens)} · ` +
    `cache write ${f(u.cache_creation_input_tokens)} · cache read ${f(u.cache_read_input_tokens)})`
  );
}

function callText(call: ToolCallView): string {
  return `${call.name} ${oneLine(JSON.stringify(call.input) ?? 'null', 200)} (${call.toolUseId})`;
}

/** `2025-06-01 14:03:07Z`: UTC, to the second. */
function timeText(date: Date): string {
  return `${new Date(date).toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
