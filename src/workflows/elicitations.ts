// MCP elicitations inside a run: the questions MCP servers asked during tool calls that wait for a person
// (pending-inputs.ts), and the answers the `answerElicitation` update brings in, checked against the requested schema
// with defaults applied. The call itself is made again with the answer (tool-calls.ts).
import { log } from '@temporalio/workflow';
import { checkedAnswer } from '../core/elicitation.js';
import type { ElicitationAck, ElicitationAnswer, ElicitationQuestion, ElicitationReply } from '../core/types.js';
import { PendingInputs } from './pending-inputs.js';

export class Elicitations {
  readonly #questions = new PendingInputs<ElicitationQuestion, ElicitationAnswer>({ item: 'question', waiting: 'waiting for an answer', done: 'answered' });

  /** The questions waiting for an answer now. */
  pending(): ElicitationQuestion[] {
    return this.#questions.pending();
  }

  /** Waits for the answer to `question`: durable, bounded by the deadline and by the server's `elicitationTimeout`
   * (then the answer is `cancel`). `changed` publishes the run's view. */
  async answerFor(question: ElicitationQuestion, changed: () => void): Promise<ElicitationAnswer> {
    log.info(`Tool call ${question.toolUseId}: MCP server "${question.server}" asks "${question.message}" (question ${question.id})`);
    const answer = await this.#questions.replyFor(question.id, question, changed, question.timeoutMs);
    if (answer) return answer;
    log.info(`Question ${question.id} got no answer within ${question.timeoutMs} ms: it is answered cancel`);
    return { key: question.key, action: 'cancel' };
  }

  /** Update validator: an unknown question, an answered one, or an answer that does not fit the schema is refused
   * (one line) and the question stays pending. */
  validate(reply: ElicitationReply): void {
    const { item: question } = this.#questions.waiting(reply.elicitationId);
    checkedAnswer(question, reply.action, reply.content);
  }

  answer(reply: ElicitationReply): ElicitationAck {
    const { id, item: question } = this.#questions.waiting(reply.elicitationId);
    const answer = checkedAnswer(question, reply.action, reply.content);
    this.#questions.reply(id, answer);
    return { elicitationId: id, action: answer.action, ...(answer.content ? { content: answer.content } : {}) };
  }

  /** The run has ended: nothing is waiting any more. */
  clear(): void {
    this.#questions.clear();
  }
}
