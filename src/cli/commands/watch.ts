// `watch`: follows a run step by step until it ends, then prints its result (exit code as `result`).
import type { Client } from '@temporalio/client';
import type { StatusReport } from '../../client/index.js';
import { agentClient } from '../lazy-client.js';
import { oneLine, totalTokens } from '../../core/transcript.js';
import { isAgentTool } from '../../core/sub-agents.js';
import { TERMINAL_STATUSES, type AgentStatusView, type ChildRunRecord, type MessageParam } from '../../core/types.js';
import { expectPositionals, type Parsed } from '../../core/args.js';
import type { ModelCallInFlight } from '../../client/model-progress.js';
import type { ToolCallInFlight } from '../../client/tool-progress.js';
import { defineCommand } from '../command.js';
import { compactionLine, type CompactionBlock } from '../../core/compaction.js';
import { forkedFromLine } from '../../core/fork.js';
import { blocksOf, callText, modelCallText, serverToolText, toolCallProgressText, toolResultText } from '../format.js';
import { logLine } from '../log.js';
import { throughOutage } from '../outage.js';
import { exitCodeFor, printResult, printText } from '../output.js';
import { stopWaitingOnSignal } from '../stop-waiting.js';
import { withTemporal } from '../temporal.js';

const WATCH_INTERVAL_MS = 500;

export const watch = defineCommand({
  usage: 'watch <workflowId>',
  description: `Follow a run live, one line per step (model calls, tool calls and results, approvals, guards), until it
ends; then print its result, with the exit code \`result\` gives. Through a server outage it waits and says so.
Ctrl-C or SIGTERM stops watching, not the run (exit 130).`,
  flags: {},
  examples: ['watch agent-search-for-the-population-of-fra-s9aiw3'],
  run: ({ positionals }: Parsed<Record<string, never>>) => {
    const [workflowId] = expectPositionals(positionals, ['workflowId'], 'watch <workflowId>');
    return stopWaitingOnSignal(workflowId, `watch ${workflowId}`, () => watchRun(workflowId));
  },
});

async function watchRun(workflowId: string): Promise<number> {
  const out = (line: string) => printText(`${line}\n`);
  return withTemporal(async (temporal) => {
    const { getAgentResult, getStatus } = await agentClient();
    const watcher = new Watcher(workflowId, out);
    const children = new ChildRuns(temporal.client, out);
    // A child's block goes under the step that delegated to it: caught up before that call's result is printed.
    watcher.beforeAgentResult = (toolUseId) => children.catchUp(toolUseId);
    const outage = { what: `watching run ${workflowId}`, address: temporal.target.address };
    let offline = false;
    for (;;) {
      const report = await throughOutage(outage, () => getStatus(temporal.client, workflowId));
      const running = report.live || report.executionStatus === 'RUNNING';
      // A worker inside a workflow task (a local model call) is alive: the run goes on, followed from its history.
      if (!report.live && running && !report.workerBusy) {
        if (!offline) {
          logLine(`waiting: ${report.reason}; following the run's history meanwhile. Is a worker running on its task queue?`);
          offline = true;
        }
      } else if (offline && report.live) {
        logLine('a worker answers again: following the run');
        offline = false;
      }
      const view = report.view;
      if (!view) {
        // Not even the history could be read: nothing to show step by step.
        if (!running) break;
        await sleep(WATCH_INTERVAL_MS);
        continue;
      }
      children.known(report.children);
      await watcher.follow(temporal.client, report, view);
      await children.followAll();
      if (TERMINAL_STATUSES.includes(view.status) || !running) break;
      // Replaying the history costs more than a query: poll it less often.
      await sleep(report.live ? WATCH_INTERVAL_MS : WATCH_INTERVAL_MS * 4);
    }
    const result = await throughOutage(outage, () => getAgentResult(temporal.client, workflowId));
    printResult(result, false);
    return exitCodeFor(result.status);
  });
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
  #lastProgress = '';
  /** What was printed last for each tool call in flight (activity and attempt), so a line is printed on change. */
  readonly #toolProgress = new Map<string, string>();
  /** Called before the result of an `agent__*` call is printed, with its tool_use id. */
  beforeAgentResult?: (toolUseId: string) => Promise<void>;

  constructor(
    readonly workflowId: string,
    readonly out: (line: string) => void,
  ) {}

  /** Prints what one status report (and, when it counts new messages, the transcript) shows that is new. */
  async follow(client: Client, report: StatusReport, view: AgentStatusView): Promise<void> {
    if (view.messages > this.printed) {
      try {
        const { getTranscript } = await agentClient();
        await this.messages(await getTranscript(client, this.workflowId), view);
      } catch (err) {
        logLine(`could not read the transcript yet: ${(err as Error).message}`);
      }
    }
    this.status(view);
    this.modelCalls(report.modelCalls);
    this.toolCalls(report.toolCalls, view);
  }

  /** The lines of one model reply: its text, thinking, compaction, tool calls and server tools. */
  #replyLines(blocks: ReturnType<typeof blocksOf>, view: AgentStatusView, i: number): void {
    for (const b of blocks) {
      if (b.type === 'text' && b.text.trim()) this.out(`  ${oneLine(b.text, 200)}`);
      else if (b.type === 'thinking' || b.type === 'redacted_thinking') this.out('  [thinking]');
      else if ((b.type as string) === 'compaction') {
        const record = view.compactionLog?.find((c) => !c.clientSide && c.messageIndex === i);
        this.out(`  ${compactionLine(record, b as unknown as CompactionBlock)}`);
      } else if (b.type === 'tool_use') {
        this.#names.set(b.id, b.name);
        this.out(`  → ${b.name} ${oneLine(JSON.stringify(b.input) ?? '', 200)}  (${b.id})`);
      } else {
        // Claude's server tools run inside the call: their call and result arrive in the reply.
        const server = serverToolText(b as unknown as { type: string } & Record<string, unknown>);
        if (server && b.type === 'server_tool_use') this.out(`  ⇢ ${server}  (server tool)`);
        else if (server) this.out(`  ⇠ ${b.type.replace(/_tool_result$/, '')}: ${server}`);
      }
    }
  }

  /** Prints the messages the status view counts that were not printed yet (a later transcript may hold more:
   * those wait for the view that counts them, so a step line and its tokens agree). */
  async messages(all: readonly MessageParam[], view: AgentStatusView): Promise<void> {
    const upTo = Math.min(view.messages, all.length);
    const fresh = all.slice(this.printed, upTo);
    const freshSteps = fresh.filter((m) => m.role === 'assistant').length;
    const fork = view.forkedFrom;
    if (this.printed === 0 && fork && fork.step > 1) this.out(`${forkedFromLine(fork)}: steps 1–${fork.step - 1} reused as recorded (not run again)`);
    for (let i = this.printed; i < upTo; i++) {
      const m = all[i];
      const blocks = blocksOf(m.content);
      if (m.role === 'assistant') {
        this.#steps++;
        // A fork's reused steps are its source's: no model call of its own, no tokens of its own.
        if (fork && this.#steps < fork.step) {
          this.out(`step ${this.#steps} · reused · ${blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'}`);
          this.#replyLines(blocks, view, i);
          continue;
        }
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
        this.#replyLines(blocks, view, i);
      } else {
        for (const b of blocks) {
          if (b.type === 'tool_result') {
            const name = this.#names.get(b.tool_use_id) ?? b.tool_use_id;
            if (isAgentTool(name)) await this.beforeAgentResult?.(b.tool_use_id);
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

  /** One line each time a model call in flight reports new words (its heartbeat, every few seconds). */
  modelCalls(calls: readonly ModelCallInFlight[]): void {
    for (const call of calls) {
      const key = `${call.activityId}/${call.attempt}/${call.progress?.events ?? 0}`;
      if (!call.progress || key === this.#lastProgress) continue;
      this.#lastProgress = key;
      const { line, words } = modelCallText(call);
      this.out(`  … model call ${line}${words ? `: ${words}` : ''}`);
    }
  }

  /** One line when a tool call in flight reports new progress, is retried, or starts waiting for an outside
   * completion. */
  toolCalls(calls: readonly ToolCallInFlight[], view: AgentStatusView): void {
    for (const call of calls) {
      // A call that is simply running says nothing new: a line when it reports progress, is retried, or waits.
      if (!call.progress && call.attempt === 1 && !call.waitingForCompletionSince) continue;
      const key = `${call.activityId}/${call.attempt}`;
      const said = [call.progress?.message, call.progress?.fraction, call.waitingForCompletionSince?.getTime()].join('|');
      if (this.#toolProgress.get(key) === said) continue;
      this.#toolProgress.set(key, said);
      const inView = view.inFlight.find((v) => v.toolUseId === call.toolUseId);
      const name = inView?.name ?? (call.toolUseId ? this.#names.get(call.toolUseId) : undefined) ?? 'tool';
      this.out(`  … ${name} ${toolCallProgressText(call, inView, Date.now())}`);
    }
  }

  status(view: AgentStatusView): void {
    for (const call of view.pendingApprovals) {
      if (this.#approvals.has(call.toolUseId)) continue;
      this.#approvals.add(call.toolUseId);
      this.out(
        `awaiting approval: ${callText(call)} — approve ${this.workflowId} ${call.toolUseId}  |  deny ${this.workflowId} ${call.toolUseId} --reason TEXT`,
      );
    }
    for (const q of view.pendingQuestions ?? []) {
      if (this.#approvals.has(q.id)) continue;
      this.#approvals.add(q.id);
      this.out(`question ${q.id} from MCP server "${q.server}": ${q.message} — answer ${this.workflowId} ${q.id} --json '{...}'  |  --decline  |  --cancel`);
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

/** The children of a run that delegates (`agent__*` calls), each followed like the run, its lines indented under
 * the parent's and prefixed with its agent's name, until it ends. A child is caught up right before the parent prints
 * the result of the call that started it, so its block sits under the step that delegated, not after the parent's
 * next step (a read of the parent's transcript can hold both, as a finished run's does). */
class ChildRuns {
  readonly #followed = new Map<string, { watcher: Watcher; done: boolean }>();
  #records: readonly ChildRunRecord[] = [];

  constructor(
    readonly client: Client,
    readonly out: (line: string) => void,
  ) {}

  /** The parent's child runs, as its latest status report lists them. */
  known(records: readonly ChildRunRecord[] | undefined): void {
    this.#records = records ?? [];
  }

  /** Follows the child run of the `agent__*` call `toolUseId` (when it started one) up to now. */
  async catchUp(toolUseId: string): Promise<void> {
    const record = this.#records.find((c) => c.toolUseId === toolUseId);
    if (record) await this.#follow(record);
  }

  async followAll(): Promise<void> {
    for (const record of this.#records) await this.#follow(record);
  }

  async #follow(record: ChildRunRecord): Promise<void> {
    let child = this.#followed.get(record.workflowId);
    if (!child) {
      this.out(`  ⇒ child run ${record.workflowId} (${record.agent})`);
      child = { watcher: new Watcher(record.workflowId, (line) => this.out(`    ${record.agent} │ ${line}`)), done: false };
      this.#followed.set(record.workflowId, child);
    }
    if (child.done) return;
    try {
      const { getStatus } = await agentClient();
      const report = await getStatus(this.client, record.workflowId);
      if (!report.view) return;
      await child.watcher.follow(this.client, report, report.view);
      const running = report.live || report.executionStatus === 'RUNNING';
      if (TERMINAL_STATUSES.includes(report.view.status) || !running) {
        child.done = true;
        child.watcher.out(`ended: ${report.view.status}`);
      }
    } catch (err) {
      logLine(`could not follow child run ${record.workflowId} yet: ${(err as Error).message}`);
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
