// One agent run inside the workflow: its state and the steps the loop is made of (a model call, a turn's tool
// calls, a follow-up, a final summary); what the run shows meanwhile is its view (run-view.ts).
// The loop itself (agent.ts) decides what happens next; this class does each step and keeps its state private.
import { ActivityFailure, condition, isCancellation, log, workflowInfo } from '@temporalio/workflow';
import type { RunState } from '../core/durable-state.js';
import { SUBMIT_ANSWER } from '../core/finish-tool.js';
import { guardNextCallFits, nextClearIndex, recordModelCall, type GuardTripped } from '../core/guards.js';
import { contextClearThreshold } from '../core/compaction.js';
import { DEFAULTS } from '../core/policies.js';
import { taskBudgetFor } from '../core/task-budget.js';
import { isAgentTool } from '../core/sub-agents.js';
import { initialRunState, notRunResults, summaryRequest, withFollowUps, type TurnProgress } from '../core/run-state.js';
import { splitMcpName } from '../core/tool-names.js';
import { textOf, toolResultMessage } from '../core/transcript.js';
import type { AgentInput, AgentResult, AgentSettings, AgentStatusView, MessageParam, ModelReply, ToolOutcome, ToolUseBlock } from '../core/types.js';
import { Approvals, deniedOutcome } from './approvals.js';
import { Elicitations } from './elicitations.js';
import { modelCallSummary, scheduleModelCall } from './proxies.js';
import { callModelInBatch } from './batch-calls.js';
import type { ModelCallRequest, RunContext } from './run-context.js';
import { noteCompaction } from './compaction.js';
import { ModelSettingsSharing } from './model-settings.js';
import { SubAgents } from './sub-agents.js';
import { allSettledThenAll, callTool, scheduleFor } from './tool-calls.js';
import { TranscriptSharing } from './transcript-sharing.js';
import { Webhooks } from './webhooks.js';
import { RunView, type Outcome } from './run-view.js';

export class AgentRun implements RunContext {
  readonly settings: AgentSettings;
  readonly state: RunState;
  readonly workflowId: string;
  readonly runId: string;
  readonly approvals = new Approvals();
  readonly elicitations = new Elicitations();
  #finishing = false;
  #stepsThisRun = 0;
  /** The current turn's tool calls: which finished (and how) and which are running, for closing the turn
   * truthfully when a deadline or a cancel cuts it short. */
  #progress: TurnProgress = {};
  readonly #transcriptSharing = new TranscriptSharing();
  /** The settings every model call names by digest (the `modelSettings` query answers from it). */
  readonly modelSettings = new ModelSettingsSharing();
  readonly subAgents = new SubAgents(this);
  readonly webhooks: Webhooks;
  /** What the run shows (the status query, the UI's details, the search attributes); the steps tell it what changed. */
  readonly #view = new RunView(this);

  constructor(readonly input: AgentInput) {
    this.settings = input.settings;
    const info = workflowInfo();
    this.workflowId = info.workflowId;
    this.runId = info.runId;
    this.state = initialRunState(input, Date.now());
    this.webhooks = new Webhooks(input.settings.webhooks ?? [], info, input.settings.heartbeatTimeoutMs);
  }

  get messages(): MessageParam[] {
    return this.state.messages;
  }

  /** True once the run is ending (a summary call, a stop): a follow-up sent now would never be read. */
  get finishing(): boolean {
    return this.#finishing;
  }

  /** Model calls made by this run (not the job): the continue-as-new threshold counts these. */
  get stepsThisRun(): number {
    return this.#stepsThisRun;
  }

  /** The run's live view, as the `agentStatus` query answers it. */
  view(): AgentStatusView {
    return this.#view.current();
  }

  /** Shows progress in the UI (current details) and, where registered, in the search attributes. */
  publish(): void {
    this.#view.publish();
  }

  /** Ends the run with this outcome and returns its result. */
  end(o: Outcome): AgentResult {
    this.#finishing = true;
    this.#keepUnreadFollowUps();
    // Nothing is waiting once the run has ended (a deadline or a cancel can end it mid-turn).
    this.approvals.clear();
    this.elicitations.clear();
    return this.#view.end(o);
  }

  /** Follow-ups accepted while the run still meant to read them (sent during its last model call, or a tool call it
   * was cancelled in) end its transcript, after the turn they came during: what the run was told is recorded, and a
   * resumed run reads them. */
  #keepUnreadFollowUps(): void {
    const unread = this.state.pendingMessages.splice(0);
    if (unread.length === 0) return;
    const last = this.messages.at(-1);
    if (last?.role === 'user') this.messages[this.messages.length - 1] = withFollowUps(last, unread)!;
    // After the model's turn: its tool calls left open, if any (a reply the loop could not act on), answered first.
    else this.messages.push(withFollowUps(notRunResults(this.messages, 'the run ended'), unread)!);
  }

  /** Ends the run as stopped without a guard (max_tokens, refusal, context window), the transcript closed. */
  stopEarly(why: string): AgentResult {
    this.closeOpenToolUses(`the run stopped: ${why}`);
    return this.end({ status: 'stopped', guard: null, error: why });
  }

  /** One model call: schedules the activity and adds its usage and cost to the guard state. The reply is not
   * in the transcript until `appendReply`. */
  async callModel(options: ModelCallRequest = {}): Promise<ModelReply> {
    const s = this.settings;
    // The messages go to this worker's transcript cache first: the call then needs no query.
    this.#transcriptSharing.share(this.messages);
    const input = {
      ...this.modelSettings.forCall(s, this.state, { workflowId: this.workflowId, runId: this.runId, messageCount: this.messages.length }),
      toolChoiceNone: options.toolChoiceNone,
      instruction: options.instruction,
      taskBudget: taskBudgetFor(s, this.state),
      clearToolResultsBefore: this.state.clearedUpTo || undefined,
      recordedTools: this.state.recordedTools?.digest,
    };
    const step = this.state.loop.steps + 1;
    const direct = () => scheduleModelCall(input, step, { summary: options.summary, heartbeatTimeoutMs: s.heartbeatTimeoutMs, local: s.localModelCalls });
    // Batch mode (docs/background-agents.md): a Message Batch request, waited for with durable timers.
    const batched = () =>
      callModelInBatch(input, step, {
        summary: modelCallSummary(input, step, options),
        fallback: s.batchFallback ?? 'retry',
        waiting: (batch) => this.#view.waitForBatch(batch),
        direct,
      });
    const reply = s.modelCalls === 'batch' ? await batched() : await direct();
    recordModelCall(this.state.loop, reply.usage, s, reply.compactionUsage, reply.batch !== undefined);
    this.#stepsThisRun++;
    this.state.stopReason = reply.stopReason;
    return reply;
  }

  /** The run is over in this workflow instance: the worker's transcript cache can drop its messages. */
  forgetTranscript(): void {
    this.#transcriptSharing.forget();
  }

  /** Appends the whole reply (every block, thinking included) as the assistant's turn, and moves the context
   * clearing point when the prompt has grown past the threshold. */
  appendReply(reply: ModelReply): void {
    this.messages.push({ role: 'assistant', content: reply.content });
    noteCompaction(this.state, reply, this.messages.length - 1);
    const clearTo = nextClearIndex(this.state.loop, this.messages.length, this.state.clearedUpTo, contextClearThreshold(this.settings));
    if (clearTo !== null) {
      log.info(`Context management: tool results before message ${clearTo} are cleared from later requests`);
      this.state.clearedUpTo = clearTo;
    }
    this.publish();
  }

  /** Appends ONE user message: every result, in tool_use order, then any follow-up sent meanwhile. */
  appendToolResults(calls: ToolUseBlock[], outcomes: ToolOutcome[]): void {
    this.messages.push(withFollowUps(toolResultMessage(calls, outcomes), this.state.pendingMessages.splice(0))!);
  }

  /** Appends a user message that continues the conversation after end_turn. */
  appendFollowUp(message: MessageParam): void {
    this.messages.push(message);
  }

  /** Runs a turn's tool calls concurrently, one activity each; a call that needs approval waits for its
   * decision first (others go ahead meanwhile). Results come back in tool_use order. */
  runTools(calls: ToolUseBlock[], needsApproval: readonly string[]): Promise<ToolOutcome[]> {
    const approvalNeeded = new Set([...(this.settings.approve ?? []), ...needsApproval]);
    this.#progress = {};
    this.subAgents.reportToParent(); // a sub-agent's totals, before it goes on
    const delegations = calls.filter((c) => isAgentTool(c.name)).length;
    this.#view.startingTools();
    const outcomes = calls.map(async (call): Promise<ToolOutcome> => {
      const view = { toolUseId: call.id, name: call.name, input: call.input };
      if (approvalNeeded.has(call.name)) {
        this.webhooks.notify('approval.needed', view, call.id);
        const decision = await this.approvals.decisionFor(view, () => this.publish());
        if (!decision.approve) return deniedOutcome(call.name, decision);
      }
      const schedule = scheduleFor(call.name, this.state.toolPolicies, this.settings);
      this.#progress[call.id] = 'in_flight';
      this.#view.toolStarted(call.id, schedule ? { ...view, timeoutMs: schedule.timeoutMs, ...(schedule.completesLater ? { completesLater: true } : {}) } : view);
      try {
        const delegated = this.state.agents && isAgentTool(call.name);
        const outcome = delegated ? await this.subAgents.delegate(call, delegations) : await callTool({
          workflowId: this.workflowId,
          toolUseId: call.id,
          name: call.name,
          input: call.input,
          allowedTools: this.settings.outputSchema ? [...this.settings.tools, SUBMIT_ANSWER] : this.settings.tools,
          outputSchema: call.name === SUBMIT_ANSWER ? this.settings.outputSchema : undefined,
          maxOutputChars: this.settings.maxToolOutputChars,
          ...(splitMcpName(call.name) ? { elicitation: { answers: [] } } : {}),
        }, schedule, this.settings, { elicitations: this.elicitations, changed: () => this.publish() });
        this.#progress[call.id] = outcome;
        return outcome;
      } finally {
        this.state.loop.toolCalls++;
        this.#view.toolSettled(call.id);
      }
    });
    this.#view.toolsStarted();
    // A cancel rejects a wait for approval at once, but a running call only once it has acknowledged: the turn
    // ends when every call has settled, so the run never closes with a call still pending.
    return allSettledThenAll(outcomes);
  }

  /** `sendMessage` validator: an empty message, or one that would never be read, is refused. */
  validateMessage(text: string): void {
    if (typeof text !== 'string' || !text.trim()) throw new Error('the message is empty');
    if (this.state.chatClosed) throw new Error('this chat run has been closed');
    if (this.#finishing) throw new Error('the run is finishing: it will not read another message');
  }

  /** A follow-up, read at the next turn boundary. */
  queueMessage(text: string): { queued: number } {
    return { queued: this.state.pendingMessages.push(text) };
  }

  /** `close`: a chat run ends at its next end_turn. A run started without chat ends there anyway: it ignores a close,
   * which would otherwise refuse its later follow-ups as sent to a closed chat. */
  closeChat(): void {
    if (this.settings.chat) this.state.chatClosed = true;
  }

  /** After end_turn: the follow-ups sent meanwhile or, in an open chat run, the next message (waited for up to
   * the idle timeout), as one user message; null when the run should end. */
  async nextMessage(): Promise<MessageParam | null> {
    const { state, settings } = this;
    if (state.pendingMessages.length === 0 && settings.chat && !state.chatClosed) {
      this.#view.waitingForMessage = true;
      this.publish();
      await condition(() => state.pendingMessages.length > 0 || state.chatClosed, settings.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs);
      this.#view.waitingForMessage = false;
    }
    return withFollowUps(null, state.pendingMessages.splice(0));
  }

  /** A guard fired: answer any tool_use left open (the API rejects a transcript without them), then, where the
   * settings and the budget allow, one last call with tools disabled asks the model to sum up. */
  async stopByGuard(tripped: GuardTripped): Promise<AgentResult> {
    this.#finishing = true;
    log.warn(`Guard ${tripped.guard} stopped the run: ${tripped.reason}`);
    this.#view.guard = tripped.guard;
    this.webhooks.notify('guard.fired', { guard: tripped.guard, reason: tripped.reason });
    const { loop } = this.state;
    const wantSummary = this.settings.summaryOn.includes(tripped.guard) && guardNextCallFits(loop, this.settings) === null;
    const closing = wantSummary
      ? summaryRequest(this.messages, tripped)
      : notRunResults(this.messages, `the run was stopped by the ${tripped.guard} guard (${tripped.reason})`);
    if (closing) this.messages.push(closing);
    const stopped = { status: 'stopped', guard: tripped.guard, error: tripped.reason } as const;
    if (!wantSummary) return this.end(stopped);
    try {
      const reply = await this.callModel({ toolChoiceNone: true, summary: `summary after ${tripped.guard}` });
      this.appendReply(reply);
      // Tools were disabled; should the reply still hold a tool_use, answer it so the transcript stays valid.
      this.closeOpenToolUses('the run had stopped; tools were disabled for the summary');
      const text = textOf(reply.content);
      if (text) return this.end({ ...stopped, text });
    } catch (err) {
      if (isCancellation(err)) throw err;
      log.warn(`The summary call failed; the partial answer is the last assistant text: ${causeMessage(err)}`);
    }
    return this.end(stopped);
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
