// Human approval of tool calls inside a run: the calls waiting for a decision (pending-inputs.ts) and the decisions
// the `decideToolCall` update brings in.
import { log } from '@temporalio/workflow';
import type { ApprovalAck, ApprovalDecision, ToolCallView, ToolOutcome } from '../core/types.js';
import { PendingInputs } from './pending-inputs.js';
import { DENIED_RESULT_PREFIX } from '../core/run-state.js';

export type Decision = Omit<ApprovalDecision, 'toolUseId'>;

export class Approvals {
  readonly #calls = new PendingInputs<ToolCallView, Decision>(
    { item: 'tool call', waiting: 'waiting for approval', done: 'decided' },
    { keepReplies: true },
  );

  /** The calls waiting for a decision now. */
  pending(): ToolCallView[] {
    return this.#calls.pending();
  }

  /** Waits for the decision on `call` (durable; bounded by the deadline). `changed` publishes the run's view. */
  async decisionFor(call: ToolCallView, changed: () => void): Promise<Decision> {
    log.info(`Tool call ${call.toolUseId} (${call.name}) is waiting for approval`);
    return (await this.#calls.replyFor(call.toolUseId, call, changed))!;
  }

  /** Update validator: runs before the decision is accepted into history. */
  validate(decision: ApprovalDecision): void {
    this.#calls.waiting(decision.toolUseId);
  }

  decide(decision: ApprovalDecision): ApprovalAck {
    const { id } = this.#calls.waiting(decision.toolUseId);
    this.#calls.reply(id, { approve: decision.approve, reason: decision.reason });
    return { toolUseId: id, approved: decision.approve };
  }

  /** The run has ended (a deadline or a cancel can end it mid-wait): nothing is waiting any more. */
  clear(): void {
    this.#calls.clear();
  }
}

/** What the model sees for a denied call: an error result it can adapt to, with the reviewer's reason. */
export function deniedOutcome(toolName: string, decision: Decision): ToolOutcome {
  const why = decision.reason ? `: ${decision.reason}` : '';
  return { isError: true, content: `${DENIED_RESULT_PREFIX}${toolName}${why}` };
}
