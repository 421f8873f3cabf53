// Human approval of tool calls inside a run: the calls waiting for a decision, the decisions the
// `decideToolCall` update brings in, and the durable wait between the two.
import { condition, log } from '@temporalio/workflow';
import type { ApprovalAck, ApprovalDecision, ToolCallView, ToolOutcome } from '../core/types.js';

export interface Decision {
  approve: boolean;
  reason?: string;
}

export class Approvals {
  readonly #pending = new Map<string, ToolCallView>();
  readonly #decisions = new Map<string, Decision>();

  /** The calls waiting for a decision now. */
  pending(): ToolCallView[] {
    return [...this.#pending.values()];
  }

  /** Waits for the decision on `call`. Durable: survives worker restarts; bounded by the deadline, whose timer
   * cancels this wait. `changed` is called when the call starts and stops waiting, to publish the run's view. */
  async decisionFor(call: ToolCallView, changed: () => void): Promise<Decision> {
    this.#pending.set(call.toolUseId, call);
    changed();
    log.info(`Tool call ${call.toolUseId} (${call.name}) is waiting for approval`);
    await condition(() => this.#decisions.has(call.toolUseId));
    this.#pending.delete(call.toolUseId);
    changed();
    return this.#decisions.get(call.toolUseId)!;
  }

  /** Update validator: runs before the decision is accepted into history. */
  validate(decision: ApprovalDecision): void {
    const id = decision.toolUseId ?? this.#soleCall();
    if (this.#decisions.has(id)) throw new Error(`tool call ${id} has already been decided`);
    if (!this.#pending.has(id)) {
      const pending = [...this.#pending.keys()];
      throw new Error(`no tool call ${id} is waiting for approval (pending: ${pending.join(', ') || 'none'})`);
    }
  }

  decide(decision: ApprovalDecision): ApprovalAck {
    const id = decision.toolUseId ?? this.#soleCall();
    this.#decisions.set(id, { approve: decision.approve, reason: decision.reason });
    return { toolUseId: id, approved: decision.approve };
  }

  /** The run has ended (a deadline or a cancel can end it mid-wait): nothing is waiting any more. */
  clear(): void {
    this.#pending.clear();
  }

  #soleCall(): string {
    const pending = [...this.#pending.keys()];
    if (pending.length === 1) return pending[0];
    if (pending.length === 0) throw new Error('no tool call is waiting for approval');
    throw new Error(`${pending.length} tool calls are waiting for approval: name one of ${pending.join(', ')}`);
  }
}

/** What the model sees for a denied call: an error result it can adapt to, with the reviewer's reason. */
export function deniedOutcome(toolName: string, decision: Decision): ToolOutcome {
  const why = decision.reason ? `: ${decision.reason}` : '';
  return { isError: true, content: `A human reviewer denied this call to ${toolName}${why}` };
}
