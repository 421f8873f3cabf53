// The one registry of what a run waits for from a person: tool calls waiting for approval (approvals.ts) and MCP
// servers' questions waiting for an answer (elicitations.ts). Each item waits under its id until an update brings its
// reply, durably (a `condition`: no activity runs meanwhile, so the wait survives any worker restart), and bounded by
// the deadline, whose timer cancels the wait. An update that names no id takes the one item waiting, if there is one.
import { condition } from '@temporalio/workflow';

/** How one kind of pending input is named in the messages an update's caller reads. */
export interface PendingInputWords {
  /** `tool call`, `question` */
  item: string;
  /** `waiting for approval`, `waiting for an answer` */
  waiting: string;
  /** `decided`, `answered` */
  done: string;
}

export interface PendingInputOptions {
  /** Keep each reply once its wait is over, so a second reply to the same id is refused as already given (approvals:
   * a tool call's id is never reused). Default false: a later item may wait under the same id (an MCP server's
   * question asked again). */
  keepReplies?: boolean;
}

export class PendingInputs<Item, Reply> {
  readonly #pending = new Map<string, Item>();
  readonly #replies = new Map<string, Reply>();

  constructor(
    private readonly words: PendingInputWords,
    private readonly options: PendingInputOptions = {},
  ) {}

  /** The items waiting now. */
  pending(): Item[] {
    return [...this.#pending.values()];
  }

  /** Waits for the reply to `item` (under `id`); with `timeoutMs`, undefined once that time has passed unanswered.
   * `changed` is called when the item starts and stops waiting, to publish the run's view. */
  async replyFor(id: string, item: Item, changed: () => void, timeoutMs?: number): Promise<Reply | undefined> {
    this.#pending.set(id, item);
    changed();
    const replied = () => this.#replies.has(id);
    try {
      if (timeoutMs !== undefined) await condition(replied, timeoutMs);
      else await condition(replied);
    } catch (err) {
      // The wait was cancelled (a cancel, the deadline): the item waits no more, so a reply sent while the run settles
      // its other calls is refused rather than accepted and never acted on. The run's end publishes the view.
      this.#pending.delete(id);
      throw err;
    }
    this.#pending.delete(id);
    changed();
    const reply = this.#replies.get(id);
    if (!this.options.keepReplies) this.#replies.delete(id);
    return reply;
  }

  /** The item an update names (`id`), or the one waiting when it names none; an Error saying which ones wait when it
   * cannot be told, or when the item named has already been replied to. For update validators: the caller reads it. */
  waiting(id: string | undefined): { id: string; item: Item } {
    const ids = [...this.#pending.keys()];
    const { item, waiting, done } = this.words;
    if (id === undefined) {
      if (ids.length === 0) throw new Error(`no ${item} is ${waiting}`);
      if (ids.length > 1) throw new Error(`${ids.length} ${item}s are ${waiting}: name one of ${ids.join(', ')}`);
      id = ids[0];
    }
    if (this.#replies.has(id)) throw new Error(`${item} ${id} has already been ${done}`);
    if (!this.#pending.has(id)) throw new Error(`no ${item} ${id} is ${waiting} (pending: ${ids.join(', ') || 'none'})`);
    return { id, item: this.#pending.get(id)! };
  }

  reply(id: string, reply: Reply): void {
    this.#replies.set(id, reply);
  }

  /** The run has ended (a deadline or a cancel can end it mid-wait): nothing is waiting any more. */
  clear(): void {
    this.#pending.clear();
  }
}
