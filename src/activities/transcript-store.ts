// Where the model activity gets the messages it sends. The activity input holds only a reference
// (workflow id, run id, message count), so each message is stored in history once. The messages come from
// this worker's cache, which the workflow itself fills: just before each model call it shares the messages
// the cache lacks (a sink, src/core/transcript-sink.ts: no query, no history). What the cache still lacks (a
// model call on another process than the run's workflow, or after a restart) is read from the workflow with
// the paged `transcriptPage` query.
import type { MessageParam, TranscriptPage, TranscriptRef } from '../core/types.js';

/** Reads messages [from, to) of a run's transcript from the workflow (a query: not recorded in history). */
export type ReadTranscriptPage = (ref: TranscriptRef, from: number, to: number) => Promise<TranscriptPage>;

type RunIds = Pick<TranscriptRef, 'workflowId' | 'runId'>;

export interface TranscriptStoreOptions {
  /** The cache's bound, in bytes of JSON, over all runs: the least recently used runs go first. A run whose
   * messages were dropped is read by query at its next model call. Default TRANSCRIPT_CACHE_BYTES. */
  maxBytes?: number;
  /** Sends the run's next workflow task and queries to any worker rather than to the one that had it cached. */
  releaseStickiness?: (ref: TranscriptRef) => Promise<unknown>;
  /** Waits before asking again for a page whose query failed (a query can expire on a loaded worker). */
  queryRetryDelaysMs?: readonly number[];
}

export interface TranscriptStoreStats {
  /** Model calls whose messages all came from the cache. */
  cacheHits: number;
  /** Messages the workflows shared with the cache. */
  sharedMessages: number;
  /** Queries made to fill a gap, and the messages they brought. */
  queries: number;
  queriedMessages: number;
  /** Page queries that failed and were asked again. */
  queryRetries: number;
}

/** 64 MiB: thousands of ordinary runs, or a few dozen of the longest (history caps a run near 50 MB). */
export const TRANSCRIPT_CACHE_BYTES = 64 * 2 ** 20;
const QUERY_RETRY_DELAYS_MS = [500, 2_000, 5_000];

interface CachedRun {
  messages: MessageParam[];
  bytes: number;
}

export class TranscriptStore {
  readonly stats: TranscriptStoreStats = { cacheHits: 0, sharedMessages: 0, queries: 0, queriedMessages: 0, queryRetries: 0 };
  // Insertion-ordered: re-inserting on use makes the first key the least recently used.
  readonly #runs = new Map<string, CachedRun>();
  #bytes = 0;
  readonly #maxBytes: number;
  readonly #retryDelaysMs: readonly number[];
  readonly #releaseStickiness: TranscriptStoreOptions['releaseStickiness'];

  constructor(
    private readonly readPage: ReadTranscriptPage,
    options: TranscriptStoreOptions = {},
  ) {
    this.#maxBytes = options.maxBytes ?? TRANSCRIPT_CACHE_BYTES;
    this.#retryDelaysMs = options.queryRetryDelaysMs ?? QUERY_RETRY_DELAYS_MS;
    this.#releaseStickiness = options.releaseStickiness;
  }

  /** Messages [from, from + messages.length) of a run, from its workflow. The cache holds only a prefix of each
   * transcript (the transcript is append-only, so a prefix is always true): messages that would leave a gap
   * (the cache dropped the run meanwhile) are not kept, and the next read queries the gap. */
  share(run: RunIds, from: number, messages: MessageParam[]): void {
    const key = keyOf(run);
    const cached = this.#runs.get(key) ?? { messages: [], bytes: 0 };
    if (from > cached.messages.length) return;
    const fresh = messages.slice(cached.messages.length - from);
    this.stats.sharedMessages += fresh.length;
    this.#remember(key, cached, fresh);
  }

  /** The run has ended: its messages go. */
  forget(run: RunIds): void {
    const key = keyOf(run);
    const cached = this.#runs.get(key);
    if (!cached) return;
    this.#runs.delete(key);
    this.#bytes -= cached.bytes;
  }

  /** The first `ref.messageCount` messages: from the cache, the rest by query. */
  async read(ref: TranscriptRef, options: { retried?: boolean } = {}): Promise<MessageParam[]> {
    const key = keyOf(ref);
    const cached = this.#runs.get(key) ?? { messages: [], bytes: 0 };
    const messages = cached.messages.slice(0, ref.messageCount);
    if (messages.length === ref.messageCount) {
      this.stats.cacheHits++;
      this.#remember(key, cached, []);
      return messages;
    }
    // A retried call this worker knows nothing of: most likely the worker that had the run cached died (the
    // heartbeat timed out). A query would first wait out the sticky-queue timeout on the dead worker's queue;
    // releasing the stickiness sends it to a live worker at once. At worst (that worker was alive) the run's next
    // workflow task replays the run on some worker.
    if (options.retried && messages.length === 0 && this.#releaseStickiness) {
      await this.#releaseStickiness(ref).catch(() => undefined);
    }
    while (messages.length < ref.messageCount) {
      const page = await this.#readPageRetrying(ref, messages.length);
      if (page.messages.length === 0) {
        throw new Error(
          `transcript of ${ref.workflowId} has ${page.total} messages, but the model call expects ${ref.messageCount}`,
        );
      }
      this.stats.queries++;
      this.stats.queriedMessages += page.messages.length;
      messages.push(...page.messages);
    }
    // What the query brought extends the cached prefix (a share may have extended it meanwhile).
    const now = this.#runs.get(key) ?? { messages: [], bytes: 0 };
    this.#remember(key, now, messages.slice(now.messages.length));
    return messages.slice(0, ref.messageCount);
  }

  clear(): void {
    this.#runs.clear();
    this.#bytes = 0;
  }

  /** A query that fails under load ("query task not found, or already expired": the worker answered after the
   * server had given up) is asked again a few times before the model call itself fails and is retried. */
  async #readPageRetrying(ref: TranscriptRef, from: number): Promise<TranscriptPage> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.readPage(ref, from, ref.messageCount);
      } catch (err) {
        if (attempt >= this.#retryDelaysMs.length || !mayPassOnRetry(err)) throw err;
        this.stats.queryRetries++;
        await new Promise((resolve) => setTimeout(resolve, this.#retryDelaysMs[attempt]));
      }
    }
  }

  #remember(key: string, cached: CachedRun, fresh: MessageParam[]): void {
    this.#runs.delete(key);
    for (const m of fresh) {
      cached.messages.push(m);
      const bytes = JSON.stringify(m).length;
      cached.bytes += bytes;
      this.#bytes += bytes;
    }
    this.#runs.set(key, cached);
    // The run just used stays, even alone over the bound: its model call is about to need it.
    for (const [oldest, run] of this.#runs) {
      if (this.#bytes <= this.#maxBytes || oldest === key) break;
      this.#runs.delete(oldest);
      this.#bytes -= run.bytes;
    }
  }
}

/** Errors a later query can get past: timeouts and an overloaded server or worker. A workflow that does not
 * exist or does not know the query will not change its answer. */
function mayPassOnRetry(err: unknown): boolean {
  return !['WorkflowNotFoundError', 'QueryNotRegisteredError', 'QueryRejectedError'].includes(err instanceof Error ? err.name : '');
}

function keyOf(ref: RunIds): string {
  return `${ref.workflowId}/${ref.runId}`;
}
