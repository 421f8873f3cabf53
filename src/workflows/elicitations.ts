// MCP elicitations inside a run: the questions MCP servers asked during tool calls that wait for a person, the answers
// the `answerElicitation` update brings in (checked against the requested schema, defaults applied), and the durable
// wait between the two. The call itself is made again with the answer (tool-calls.ts): no activity runs meanwhile,
// so the wait survives any worker restart.
import { condition, log } from '@temporalio/workflow';
import { checkedAnswer } from '../core/elicitation.js';
import type { ElicitationAck, ElicitationAnswer, ElicitationQuestion, ElicitationReply } from '../core/types.js';

export class Elicitations {
  readonly #pending = new Map<string, ElicitationQuestion>();
  readonly #answers = new Map<string, ElicitationAnswer>();

  /** The questions waiting for an answer now. */
  pending(): ElicitationQuestion[] {
    return [...this.#pending.values()];
  }

  /** Waits for the answer to `question`: durable, bounded by the deadline (whose timer cancels this wait) and by the
   * server's `elicitationTimeout` (then the answer is `cancel`). `changed` publishes the run's view. */
  async answerFor(question: ElicitationQuestion, changed: () => void): Promise<ElicitationAnswer> {
    this.#pending.set(question.id, question);
    changed();
    log.info(`Tool call ${question.toolUseId}: MCP server "${question.server}" asks "${question.message}" (question ${question.id})`);
    const answered = () => this.#answers.has(question.id);
    const inTime = question.timeoutMs !== undefined ? await condition(answered, question.timeoutMs) : (await condition(answered), true);
    this.#pending.delete(question.id);
    changed();
    const answer = this.#answers.get(question.id) ?? { key: question.key, action: 'cancel' as const };
    // A later question of the call may take the same id (the server asked something else at that point): it starts afresh.
    this.#answers.delete(question.id);
    if (!inTime) log.info(`Question ${question.id} got no answer within ${question.timeoutMs} ms: it is answered cancel`);
    return answer;
  }

  /** Update validator: an unknown question, an answered one, or an answer that does not fit the schema is refused
   * (one line) and the question stays pending. */
  validate(reply: ElicitationReply): void {
    const question = this.#question(reply);
    if (this.#answers.has(question.id)) throw new Error(`question ${question.id} has already been answered`);
    checkedAnswer(question, reply.action, reply.content);
  }

  answer(reply: ElicitationReply): ElicitationAck {
    const question = this.#question(reply);
    const answer = checkedAnswer(question, reply.action, reply.content);
    this.#answers.set(question.id, answer);
    return { elicitationId: question.id, action: answer.action, ...(answer.content ? { content: answer.content } : {}) };
  }

  /** The run has ended: nothing is waiting any more. */
  clear(): void {
    this.#pending.clear();
  }

  #question(reply: ElicitationReply): ElicitationQuestion {
    const pending = [...this.#pending.keys()];
    if (reply.elicitationId === undefined) {
      if (pending.length === 1) return this.#pending.get(pending[0])!;
      if (pending.length === 0) throw new Error('no question is waiting for an answer');
      throw new Error(`${pending.length} questions are waiting for an answer: name one of ${pending.join(', ')}`);
    }
    const question = this.#pending.get(reply.elicitationId);
    if (!question) throw new Error(`no question ${reply.elicitationId} is waiting for an answer (pending: ${pending.join(', ') || 'none'})`);
    return question;
  }
}
