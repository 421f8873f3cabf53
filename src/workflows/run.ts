// One agent run inside the workflow: its state, the live view of it (query, UI details, search attributes),
// and the steps the loop is made of (a model call, a turn's tool calls, a human decision, a final summary).
import {
  ActivityFailure,
  condition,
  isCancellation,
  log,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { SUBMIT_ANSWER } from '../core/finish-tool.js';
import { guardNextCallFits, nextClearIndex, recordModelCall, type GuardTripped } from '../core/guards.js';
import { DEFAULTS } from '../core/policies.js';
import { progressDetails } from '../core/progress.js';
import type { RunState } from '../core/durable-state.js';
import { initialRunState, notRunResults, summaryRequest, type TurnProgress } from '../core/run-state.js';
import * as SA from '../core/search-attributes.js';
import { lastAssistantText, textOf, totalTokens } from '../core/transcript.js';
import type {
  AgentInput,
  AgentResult,
  AgentSettings,
  AgentStatusValue,
  AgentStatusView,
  ApprovalAck,
  ApprovalDecision,
  GuardName,
  ModelReply,
  ToolCallView,
  ToolOutcome,
  ToolUseBlock,
} from '../core/types.js';
import { scheduleModelCall, scheduleToolCall } from './proxies.js';

export type Outcome = Pick<AgentResult, 'status' | 'guard' | 'error'> & { text?: string; output?: unknown };

export class AgentRun {
  readonly settings: AgentSettings;
  readonly state: RunState;
  readonly workflowId: string;
  readonly runId: string;
  status: AgentStatusValue = 'running';
  guard: GuardName | null = null;
  waitingForMessage = false;
  /** Set once the run is ending (a summary call, a stop): a follow-up sent now would never be read. */
  finishing = false;
  /** Model calls made by this run (not the job): the continue-as-new threshold counts these. */
  stepsThisRun = 0;
  readonly #inFlight = new Map<string, ToolCallView>();
  readonly #pendingApprovals = new Map<string, ToolCallView>();
  readonly #decisions = new Map<string, { approve: boolean; reason?: string }>();
  /** The current turn's tool calls: which finished (and how) and which are running, for closing the turn
   * truthfully when a deadline or a cancel cuts it short. */
  #progress: TurnProgress = {};
  #published = '';

  constructor(readonly input: AgentInput) {
    this.settings = input.settings;
    const info = workflowInfo();
    this.workflowId = info.workflowId;
    this.runId = info.runId;
    this.state = initialRunState(input, Date.now());
  }

  get messages() {
    return this.state.messages;
  }

  view(): AgentStatusView {
    const { loop } = this.state;
    return {
      workflowId: this.workflowId,
      runId: this.runId,
      status: this.status,
      steps: loop.steps,
      toolCalls: loop.toolCalls,
      usage: loop.usage,
      costUsd: loop.costUsd,
      stopReason: this.state.stopReason,
      guard: this.guard,
      inFlight: [...this.#inFlight.values()],
      pendingApprovals: [...this.#pendingApprovals.values()],
      lastText: lastAssistantText(this.messages),
      messages: this.messages.length,
      deadlineAt: this.state.deadlineAt,
      runsUsed: this.state.runsUsed,
      waitingForMessage: this.waitingForMessage,
      clearedUpTo: this.state.clearedUpTo,
      model: this.settings.model,
    };
  }

  /** Shows progress in the UI (current details) and, where registered, in the search attributes. */
  publish(): void {
    const view = this.view();
    setCurrentDetails(progressDetails(view, Date.now()));
    if (!this.settings.searchAttributes) return;
    const pairs: SearchAttributeUpdatePair[] = [
      { key: SA.AgentStatus, value: view.status },
      { key: SA.AgentSteps, value: view.steps },
      { key: SA.AgentTokens, value: totalTokens(view.usage) },
      { key: SA.AgentCostUsd, value: view.costUsd ?? 0 },
      { key: SA.AgentStopReason, value: view.stopReason ?? '' },
      { key: SA.AgentGuard, value: view.guard ?? '' },
      { key: SA.AgentModel, value: view.model },
    ];
    // Each upsert is a history event: only when something changed.
    const key = JSON.stringify(pairs.map((p) => p.value));
    if (key === this.#published) return;
    this.#published = key;
    upsertSearchAttributes(pairs);
  }

  result(o: Outcome): AgentResult {
    this.finishing = true;
    this.status = o.status;
    this.guard = o.guard;
    // Nothing is waiting or running once the run has ended (a deadline or a cancel can end it mid-turn).
    this.#pendingApprovals.clear();
    this.#inFlight.clear();
    this.publish();
    const { loop } = this.state;
    return {
      workflowId: this.workflowId,
      runId: this.runId,
      status: o.status,
      stopReason: this.state.stopReason,
      guard: o.guard,
      text: o.text ?? lastAssistantText(this.messages),
      partial: o.status !== 'completed',
      ...(o.output !== undefined ? { output: o.output } : {}),
      steps: loop.steps,
      toolCalls: loop.toolCalls,
      usage: loop.usage,
      costUsd: loop.costUsd,
      error: o.error,
      ...(this.state.runsUsed > 1 ? { runsUsed: this.state.runsUsed } : {}),
      ...(this.input.resumedFrom ? { resumedFrom: this.input.resumedFrom } : {}),
    };
  }

  async callModel(options: { toolChoiceNone?: boolean; summary?: string } = {}): Promise<ModelReply> {
    const s = this.settings;
    const reply = await scheduleModelCall(
      {
        transcript: { workflowId: this.workflowId, runId: this.runId, messageCount: this.messages.length },
        model: s.model,
        maxOutputTokens: s.maxOutputTokens,
        system: s.system,
        tools: s.tools,
        toolChoiceNone: options.toolChoiceNone,
        promptCaching: s.promptCaching,
        effort: s.effort,
        thinkingBudget: s.thinkingBudget,
        outputSchema: s.outputSchema,
        clearToolResultsBefore: this.state.clearedUpTo || undefined,
      },
      this.state.loop.steps + 1,
      { summary: options.summary, heartbeatTimeoutMs: s.heartbeatTimeoutMs },
    );
    recordModelCall(this.state.loop, reply.usage, s);
    this.stepsThisRun++;
    const clearTo = nextClearIndex(
      this.state.loop,
      this.messages.length + 1,
      this.state.clearedUpTo,
      s.contextClearAtTokens ?? DEFAULTS.contextClearAtTokens,
    );
    if (clearTo !== null) {
      log.info(`Context management: tool results before message ${clearTo} are cleared from later requests`);
      this.state.clearedUpTo = clearTo;
    }
    this.state.stopReason = reply.stopReason;
    this.messages.push({ role: 'assistant', content: reply.content });
    this.publish();
    return reply;
  }

  /** Runs a turn's tool calls concurrently, one activity each; a call that needs approval waits for its
   * decision first (others go ahead meanwhile). Results come back in tool_use order. */
  runTools(calls: ToolUseBlock[], needsApproval: readonly string[]): Promise<ToolOutcome[]> {
    const approvalNeeded = new Set([...(this.settings.approve ?? []), ...needsApproval]);
    this.#progress = {};
    return Promise.all(
      calls.map(async (call): Promise<ToolOutcome> => {
        const view = { toolUseId: call.id, name: call.name, input: call.input };
        if (approvalNeeded.has(call.name)) {
          const decision = await this.#awaitDecision(view);
          if (!decision.approve) {
            const why = decision.reason ? `: ${decision.reason}` : '';
            return { isError: true, content: `A human reviewer denied this call to ${call.name}${why}` };
          }
        }
        this.#inFlight.set(call.id, view);
        this.#progress[call.id] = 'in_flight';
        this.publish();
        try {
          const outcome = await scheduleToolCall({
            workflowId: this.workflowId,
            toolUseId: call.id,
            name: call.name,
            input: call.input,
            allowedTools: this.settings.outputSchema ? [...this.settings.tools, SUBMIT_ANSWER] : this.settings.tools,
            outputSchema: call.name === SUBMIT_ANSWER ? this.settings.outputSchema : undefined,
            maxOutputChars: this.settings.maxToolOutputChars,
          }, this.settings.heartbeatTimeoutMs);
          this.#progress[call.id] = outcome;
          return outcome;
        } catch (err) {
          // Retries exhausted: the model sees the failure and the loop goes on (the error streak bounds it).
          if (!(err instanceof ActivityFailure) || isCancellation(err)) throw err;
          const failed = { isError: true, content: `Tool "${call.name}" failed: ${causeMessage(err)}` };
          this.#progress[call.id] = failed;
          return failed;
        } finally {
          this.state.loop.toolCalls++;
          this.#inFlight.delete(call.id);
          this.publish();
        }
      }),
    );
  }

  async #awaitDecision(call: ToolCallView): Promise<{ approve: boolean; reason?: string }> {
    this.#pendingApprovals.set(call.toolUseId, call);
    this.status = 'awaiting_approval';
    this.publish();
    log.info(`Tool call ${call.toolUseId} (${call.name}) is waiting for approval`);
    // Durable: survives worker restarts; bounded by the deadline, whose timer cancels this wait.
    await condition(() => this.#decisions.has(call.toolUseId));
    this.#pendingApprovals.delete(call.toolUseId);
    if (this.#pendingApprovals.size === 0) this.status = 'running';
    this.publish();
    return this.#decisions.get(call.toolUseId)!;
  }

  /** Update validator: runs before the decision is accepted into history. */
  validateDecision(decision: ApprovalDecision): void {
    const id = decision.toolUseId ?? this.#soleCall();
    if (this.#decisions.has(id)) throw new Error(`tool call ${id} has already been decided`);
    if (!this.#pendingApprovals.has(id)) {
      const pending = [...this.#pendingApprovals.keys()];
      throw new Error(`no tool call ${id} is waiting for approval (pending: ${pending.join(', ') || 'none'})`);
    }
  }

  decide(decision: ApprovalDecision): ApprovalAck {
    const id = decision.toolUseId ?? this.#soleCall();
    this.#decisions.set(id, { approve: decision.approve, reason: decision.reason });
    return { toolUseId: id, approved: decision.approve };
  }

  #soleCall(): string {
    const pending = [...this.#pendingApprovals.keys()];
    if (pending.length === 1) return pending[0];
    if (pending.length === 0) throw new Error('no tool call is waiting for approval');
    throw new Error(`${pending.length} tool calls are waiting for approval: name one of ${pending.join(', ')}`);
  }

  /** A guard fired: answer any tool_use left open (the API rejects a transcript without them), then, where the
   * settings and the budget allow, one last call with tools disabled asks the model to sum up. */
  async stopByGuard(tripped: GuardTripped): Promise<AgentResult> {
    this.finishing = true;
    log.warn(`Guard ${tripped.guard} stopped the run: ${tripped.reason}`);
    this.guard = tripped.guard;
    const { loop } = this.state;
    const wantSummary = this.settings.summaryOn.includes(tripped.guard) && guardNextCallFits(loop, this.settings) === null;
    const closing = wantSummary
      ? summaryRequest(this.messages, tripped)
      : notRunResults(this.messages, `the run was stopped by the ${tripped.guard} guard (${tripped.reason})`);
    if (closing) this.messages.push(closing);
    const stopped = { status: 'stopped', guard: tripped.guard, error: tripped.reason } as const;
    if (!wantSummary) return this.result(stopped);
    try {
      const reply = await this.callModel({ toolChoiceNone: true, summary: `summary after ${tripped.guard}` });
      // Tools were disabled; should the reply still hold a tool_use, answer it so the transcript stays valid.
      this.closeOpenToolUses('the run had stopped; tools were disabled for the summary');
      const text = textOf(reply.content);
      if (text) return this.result({ ...stopped, text });
    } catch (err) {
      if (isCancellation(err)) throw err;
      log.warn(`The summary call failed; the partial answer is the last assistant text: ${causeMessage(err)}`);
    }
    return this.result(stopped);
  }

  /** Closes the transcript of a run that ends abruptly (deadline, cancellation), so it stays valid. */
  closeOpenToolUses(why: string): void {
    const closing = notRunResults(this.messages, why, this.#progress);
    if (closing) this.messages.push(closing);
  }
}

export function causeMessage(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}
