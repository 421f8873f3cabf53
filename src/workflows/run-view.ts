// What one agent run shows while it runs and when it ends: the live view (the `agentStatus` query, the UI's
// current details, the search attributes, the approvals gauge) and the result it ends with. AgentRun (run.ts)
// does the steps and tells this view what changed; the view reads the run's state and never changes it.
import { agentResult } from '../core/result.js';
import { setCurrentDetails } from '@temporalio/workflow';
import { progressDetails } from '../core/progress.js';
import { LastAssistantText } from '../core/transcript.js';
import type { AgentResult, AgentStatusView, BatchSubmission, GuardName, RunStatus, ToolCallView } from '../core/types.js';
import type { Approvals } from './approvals.js';
import type { RunContext } from './run-context.js';
import type { Elicitations } from './elicitations.js';
import { compactionView } from './compaction.js';
import { SearchAttributeUpserts } from './search-attribute-upserts.js';
import type { SubAgents } from './sub-agents.js';
import type { Webhooks } from './webhooks.js';
import { runEndEventType, WEBHOOK_TEXT_CHARS } from '../core/webhooks.js';
import { ApprovalsGauge, reportRunEnded } from './telemetry.js';

export type Outcome = Pick<AgentResult, 'status' | 'guard' | 'error'> & { text?: string; output?: unknown };

/** What the view reads of the run (AgentRun is one). */
export interface ViewedRun extends Pick<RunContext, 'input' | 'settings' | 'state' | 'workflowId'> {
  readonly runId: string;
  readonly approvals: Approvals;
  readonly elicitations: Elicitations;
  readonly subAgents: SubAgents;
  readonly webhooks: Webhooks;
}

export class RunView {
  /** Set when the run ends; until then the status is running or awaiting_approval. */
  #endedAs: RunStatus | null = null;
  /** The guard that stopped the run, shown from when it fires (before the closing summary call). */
  guard: GuardName | null = null;
  /** An open chat run is waiting for its next message. */
  waitingForMessage = false;
  #waitingForBatch: AgentStatusView['waitingForBatch'] | null = null;
  /** The live view's last text, kept as the transcript grows (the view is built at every step). */
  readonly #lastText = new LastAssistantText();
  /** While a turn's tool calls are being started (runTools), their start is published once, after the last. */
  #startingTools = false;
  #startsUnpublished = false;
  readonly #inFlight = new Map<string, ToolCallView>();
  readonly #searchAttributes = new SearchAttributeUpserts();
  readonly #approvalsGauge = new ApprovalsGauge();

  constructor(private readonly run: ViewedRun) {}

  current(): AgentStatusView {
    const { state, settings, input } = this.run;
    const { loop } = state;
    const pendingApprovals = this.run.approvals.pending();
    const pendingQuestions = this.run.elicitations.pending();
    const waiting = pendingApprovals.length > 0 ? 'awaiting_approval' : pendingQuestions.length > 0 ? 'awaiting_input' : 'running';
    return {
      workflowId: this.run.workflowId,
      runId: this.run.runId,
      status: this.#endedAs ?? waiting,
      steps: loop.steps,
      toolCalls: loop.toolCalls,
      usage: loop.usage,
      costUsd: loop.costUsd,
      stopReason: state.stopReason,
      guard: this.guard,
      inFlight: [...this.#inFlight.values()],
      pendingApprovals,
      ...(pendingQuestions.length > 0 ? { pendingQuestions } : {}),
      lastText: this.#lastText.of(state.messages),
      messages: state.messages.length,
      deadlineAt: state.deadlineAt,
      runsUsed: state.runsUsed,
      waitingForMessage: this.waitingForMessage,
      clearedUpTo: state.clearedUpTo,
      model: settings.model,
      ...compactionView(state),
      ...(state.children ? { children: this.run.subAgents.view() } : {}),
      ...(input.forkedFrom ? { forkedFrom: input.forkedFrom } : {}),
      ...(this.#waitingForBatch ? { waitingForBatch: this.#waitingForBatch } : {}),
    };
  }

  /** Shows progress in the UI (current details) and, where registered, in the search attributes. */
  publish(): void {
    const view = this.current();
    setCurrentDetails(progressDetails(view, Date.now()));
    this.#approvalsGauge.report(view.pendingApprovals.length);
    if (this.run.settings.searchAttributes) this.#searchAttributes.write(view);
  }

  /** Shows the run as ended with this outcome and returns its result. */
  end(o: Outcome): AgentResult {
    this.#endedAs = o.status;
    this.guard = o.guard;
    // Nothing is running once the run has ended (a deadline or a cancel can end it mid-turn).
    this.#inFlight.clear();
    this.publish();
    reportRunEnded(o.status, o.guard);
    const { state, input } = this.run;
    const { loop } = state;
    const result = agentResult({
      workflowId: this.run.workflowId,
      runId: this.run.runId,
      status: o.status,
      stopReason: state.stopReason,
      guard: o.guard,
      text: o.text ?? this.#lastText.of(state.messages),
      output: o.output,
      steps: loop.steps,
      toolCalls: loop.toolCalls,
      usage: loop.usage,
      costUsd: loop.costUsd,
      error: o.error,
      runsUsed: state.runsUsed,
      resumedFrom: input.resumedFrom,
      forkedFrom: input.forkedFrom,
    });
    this.#notifyEnd(result);
    return result;
  }

  /** The webhooks of the run's end: guard.fired (unless sent when the guard fired) and run.<status>. */
  #notifyEnd(result: AgentResult): void {
    const { webhooks } = this.run;
    if (result.guard) webhooks.notify('guard.fired', { guard: result.guard, reason: result.error });
    const type = runEndEventType(result.status);
    if (!type) return;
    const { text, ...rest } = result;
    webhooks.notify(type, {
      ...rest,
      text: text.slice(0, WEBHOOK_TEXT_CHARS),
      ...(text.length > WEBHOOK_TEXT_CHARS ? { textTruncated: true } : {}),
    });
  }

  /** Batch mode: the batch the current call waits for (shown by `status`), then null. */
  waitForBatch(batch: BatchSubmission | null): void {
    this.#waitingForBatch = batch ? { batchId: batch.batchId, submittedAt: batch.submittedAt } : null;
    this.publish();
  }

  /** A turn's tool calls are being started: their starts are published once, by `toolsStarted`. */
  startingTools(): void {
    this.#startingTools = true;
  }

  /** A tool call is running. */
  toolStarted(toolUseId: string, view: ToolCallView): void {
    this.#inFlight.set(toolUseId, view);
    // The calls that start at once (no approval to wait for) are published together, after the last of them.
    if (this.#startingTools) this.#startsUnpublished = true;
    else this.publish();
  }

  /** Every call of the turn that could start at once has started. */
  toolsStarted(): void {
    this.#startingTools = false;
    if (this.#startsUnpublished) {
      this.#startsUnpublished = false;
      this.publish();
    }
  }

  /** A tool call has settled (finished, failed or cancelled). */
  toolSettled(toolUseId: string): void {
    this.#inFlight.delete(toolUseId);
    this.publish();
  }
}
