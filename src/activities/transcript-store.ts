// Where the model activity gets the messages it sends. The activity input holds only a reference
// (workflow id, run id, message count), so each message is stored in history once; the messages come from
// this worker's cache, and what the cache lacks (the newest turn, or everything on a fresh worker, after a
// restart or a continue-as-new) is read from the workflow with the paged `transcriptPage` query.
import type { MessageParam, TranscriptPage, TranscriptRef } from '../core/types.js';

/** Reads messages [from, to) of a run's transcript from the workflow (a query: not recorded in history). */
export type ReadTranscriptPage = (ref: TranscriptRef, from: number, to: number) => Promise<TranscriptPage>;

export interface TranscriptStoreStats {
  /** Model calls whose messages all came from the cache. */
  cacheHits: number;
  /** Queries made to fill a gap, and the messages they brought. */
  queries: number;
  queriedMessages: number;
}

export class TranscriptStore {
  readonly stats: TranscriptStoreStats = { cacheHits: 0, queries: 0, queriedMessages: 0 };
  // Insertion-ordered: re-inserting on use makes the first key the least recently used.
  readonly #runs = new Map<string, MessageParam[]>();

  constructor(
    private readonly readPage: ReadTranscriptPage,
    private readonly maxRuns = 256,
    /** Sends the run's next workflow task and queries to any worker rather than to the one that had it cached. */
    private readonly releaseStickiness?: (ref: TranscriptRef) => Promise<unknown>,
  ) {}

  /** The first `ref.messageCount` messages. The cache holds only messages the workflow itself served or asked
   * a model call with (never a reply this worker received: an attempt the server had already given up on may
   * have got a reply that history never recorded), and the transcript is append-only, so a cached prefix is
   * always true. */
  async read(ref: TranscriptRef, options: { retried?: boolean } = {}): Promise<MessageParam[]> {
    const key = keyOf(ref);
    const messages = (this.#runs.get(key) ?? []).slice(0, ref.messageCount);
    if (messages.length === ref.messageCount) this.stats.cacheHits++;
    // A retried call this worker knows nothing of: most likely the worker that had the run cached died (the
    // heartbeat timed out). A query would first wait out the sticky-queue timeout on the dead worker's queue;
    // releasing the stickiness sends it to a live worker at once. At worst (that worker was alive) the run's next
    // workflow task replays the run on some worker.
    if (options.retried && messages.length === 0 && this.releaseStickiness) {
      await this.releaseStickiness(ref).catch(() => undefined);
    }
    while (messages.length < ref.messageCount) {
      const page = await this.readPage(ref, messages.length, ref.messageCount);
      if (page.messages.length === 0) {
        throw new Error(
          `transcript of ${ref.workflowId} has ${page.total} messages, but the model call expects ${ref.messageCount}`,
        );
      }
      this.stats.queries++;
      this.stats.queriedMessages += page.messages.length;
      messages.push(...page.messages);
    }
    this.#remember(key, messages);
    return messages.slice();
  }

  clear(): void {
    this.#runs.clear();
  }

  #remember(key: string, messages: MessageParam[]): void {
    this.#runs.delete(key);
    this.#runs.set(key, messages);
    while (this.#runs.size > this.maxRuns) this.#runs.delete(this.#runs.keys().next().value!);
  }
}

function keyOf(ref: Pick<TranscriptRef, 'workflowId' | 'runId'>): string {
  return `${ref.workflowId}/${ref.runId}`;
}
