// A run's sub-agents from the workflow's side: each `agent__<name>` call is a child run of the agent workflow (its
// own loop, guards and inspection), its id derived from the parent's and the tool_use id, its budget and deadline
// within what the parent has left; its usage rolls up into the parent's as the child reports it, and a parent whose
// budget its children spent cancels them. The child's end becomes the call's tool_result.
import {
  CancellationScope,
  ChildWorkflowFailure,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  ParentClosePolicy,
  ChildWorkflowCancellationType,
  ApplicationFailure,
  TerminatedFailure,
  workflowInfo,
} from '@temporalio/workflow';
import { guardBudget, modelPrice } from '../core/guards.js';
import {
  agentNameOf,
  agentToolName,
  childFailure,
  childOutcome,
  childSettings,
  childTask,
  childWorkflowId,
  newChildRecord,
  rollUp,
} from '../core/sub-agents.js';
import { oneLine, totalTokens } from '../core/transcript.js';
import type { AgentInput, AgentResult, ChildRunRecord, SubAgentReport, ToolOutcome, ToolUseBlock } from '../core/types.js';
import { AGENT_RUN_FAILED, AGENT_WORKFLOW, subAgentReport } from './definitions.js';
import type { RunContext } from './run-context.js';

export class SubAgents {
  /** The scopes of the children running now: cancelled together when the parent's budget is spent. */
  readonly #running = new Set<CancellationScope>();
  #budgetStop: string | null = null;
  #reported = '0:0';

  constructor(private readonly run: RunContext) {}

  /** One `agent__<name>` call of a turn that has `share` of them: a child run, awaited; its answer (or why it has
   * none) as the tool_result. */
  async delegate(call: ToolUseBlock, share: number): Promise<ToolOutcome> {
    const { state, settings, input } = this.run;
    const name = agentNameOf(call.name);
    const def = state.agents?.[name];
    if (!def) return { isError: true, content: `There is no sub-agent "${name}" in this run (it may use: ${Object.keys(state.agents ?? {}).map(agentToolName).join(', ') || 'none'})` };
    const task = childTask(call.input);
    if (task === null) {
      return { isError: true, content: `${call.name} needs its input as {"task": "<what the ${name} sub-agent should do>"}` };
    }
    const workflowId = childWorkflowId(this.run.workflowId, call.id);
    const depth = (input.subAgent?.depth ?? 0) + 1;
    const childInput: AgentInput = {
      task,
      settings: childSettings(settings, def, state.loop, state.deadlineAt, Date.now(), depth, share),
      subAgent: { name, depth },
    };
    const { budgetUsd, model } = childInput.settings;
    if (budgetUsd !== undefined && !modelPrice(childInput.settings)) {
      // Unpriced, its cost would be null: neither its own guard nor its parent's could see what it spends.
      return {
        isError: true,
        content: `Sub-agent "${name}" (${workflowId}) was not started: its model "${model}" has no price, so a dollar budget cannot bound its spend (give the model's price in the run's prices, or use budgetTokens)`,
      };
    }
    const record = ((state.children ??= {})[workflowId] ??= newChildRecord(workflowId, name, call.id));
    this.run.publish();
    const scope = new CancellationScope();
    this.#running.add(scope);
    try {
      const result = await scope.run(() =>
        executeChild<(input: AgentInput) => Promise<AgentResult>>(AGENT_WORKFLOW, {
          workflowId,
          args: [childInput],
          // terminate of the parent terminates its children; a cancel reaches them through the scope and waits
          // for their partial answers.
          parentClosePolicy: ParentClosePolicy.TERMINATE,
          cancellationType: ChildWorkflowCancellationType.WAIT_CANCELLATION_COMPLETED,
          staticSummary: oneLine(`sub-agent ${name}: ${task}`, 200),
          // Its own priority, else its parent's (Temporal's inheritance); the fairness key is always the parent's.
          ...(def.priority !== undefined ? { priority: { priorityKey: def.priority } } : {}),
        }),
      );
      this.#running.delete(scope);
      this.#ended(record, result);
      if (result.status === 'cancelled' && this.#budgetStop) {
        return childOutcome(name, workflowId, { ...result, status: 'stopped', guard: null, error: `the parent run's budget is spent (${this.#budgetStop})` });
      }
      return childOutcome(name, workflowId, result);
    } catch (err) {
      if (!(err instanceof ChildWorkflowFailure) || isCancellation(err)) throw err;
      const cause = err.cause;
      const partial = cause instanceof ApplicationFailure && cause.type === AGENT_RUN_FAILED ? (cause.details?.[0] as AgentResult | undefined) : undefined;
      this.#running.delete(scope);
      if (partial) this.#ended(record, partial);
      else record.status = cause instanceof TerminatedFailure ? 'terminated' : 'failed';
      return childFailure(name, workflowId, cause instanceof TerminatedFailure ? `it was terminated (${cause.message})` : (cause?.message ?? err.message));
    } finally {
      this.#running.delete(scope);
      this.run.publish();
    }
  }

  /** A child's totals so far: the parent's grow by what it spent since its last report; a parent whose budget is
   * now spent cancels its running children (they end with their partial answers). */
  onReport(report: SubAgentReport): void {
    const record = this.run.state.children?.[report.workflowId];
    if (!record || record.status !== 'running') return;
    rollUp(this.run.state.loop, record, report.usage, report.costUsd);
    record.steps = report.steps;
    this.#spent();
    this.run.publish();
  }

  /** After a child's spend reached the parent (a report, or its result): a parent whose budget is now spent cancels
   * the children still running, and a sub-agent relays the spend up the tree. */
  #spent(): void {
    const spent = guardBudget(this.run.state.loop, this.run.settings);
    if (spent && this.#running.size > 0) {
      this.#budgetStop = spent.reason;
      for (const scope of this.#running) scope.cancel();
    }
    this.reportToParent(); // a sub-agent relays its children's spend up the tree
  }

  /** The child runs, for the status view; undefined for a run that never delegated. */
  view(): ChildRunRecord[] | undefined {
    const children = this.run.state.children;
    return children ? Object.values(children) : undefined;
  }

  /** In a sub-agent: tells the parent its totals (a signal, so the parent's guards see them before the child ends),
   * when they changed: as a turn's tool calls start, and as its own children report. Not after its last model call:
   * its result carries its totals, and a signal sent as it completes would not be delivered. */
  reportToParent(): void {
    const parent = workflowInfo().parent;
    if (!this.run.input.subAgent || !parent) return;
    const { steps, usage, costUsd } = this.run.state.loop;
    const key = `${steps}:${totalTokens(usage)}`;
    if (key === this.#reported) return;
    this.#reported = key;
    const signalled = getExternalWorkflowHandle(parent.workflowId).signal(subAgentReport, { workflowId: this.run.workflowId, steps, usage, costUsd });
    signalled.catch(() => undefined); // a parent that has closed meanwhile needs no report
  }

  /** A child's end (its scope no longer running): its final totals, which no report carried (its last model call). */
  #ended(record: ChildRunRecord, result: AgentResult): void {
    rollUp(this.run.state.loop, record, result.usage, result.costUsd);
    record.status = result.status;
    record.steps = result.steps;
    this.#spent();
  }
}
