// Where the model activity gets the messages it sends. The activity input holds only a reference
// (workflow id, run id, message count), so each message is stored in history once; the messages come from
// this worker's cache, and what the cache lacks (the newest tool results, or everything on a fresh worker,
// after a restart or a continue-as-new) is read from the workflow with the paged `transcriptPage` query.
import type { Client } from '@temporalio/client';
import type { MessageParam, TranscriptRef } from '../core/types.js';
import { transcriptPage } from '../workflows/definitions.js';

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
    private readonly client: Client,
    private readonly maxRuns = 256,
  ) {}

  async read(ref: TranscriptRef): Promise<MessageParam[]> {
    const key = keyOf(ref);
    // The transcript is append-only, so any cached prefix is still true, even one longer than asked for
    // (a retried call whose first attempt already cached its reply).
    const messages = (this.#runs.get(key) ?? []).slice(0, ref.messageCount);
    if (messages.length === ref.messageCount) this.stats.cacheHits++;
    const handle = this.client.workflow.getHandle(ref.workflowId, ref.runId);
    while (messages.length < ref.messageCount) {
      const page = await handle.query(transcriptPage, messages.length, ref.messageCount);
      if (page.messages.length === 0) {
        throw new Error(
          `transcript of ${ref.workflowId} has ${page.total} messages, but the model call expects ${ref.messageCount}`,
        );
      }
      this.stats.queries++;
      this.stats.queriedMessages += page.messages.length;
      messages.push(...page.messages);
    }
    this.remember(ref, messages);
    return messages.slice();
  }

  /** Records the transcript as it stands after a model call, so the next call only queries what is new. */
  remember(ref: Pick<TranscriptRef, 'workflowId' | 'runId'>, messages: MessageParam[]): void {
    const key = keyOf(ref);
    this.#runs.delete(key);
    this.#runs.set(key, messages);
    while (this.#runs.size > this.maxRuns) this.#runs.delete(this.#runs.keys().next().value!);
  }

  clear(): void {
    this.#runs.clear();
  }
}

function keyOf(ref: Pick<TranscriptRef, 'workflowId' | 'runId'>): string {
  return `${ref.workflowId}/${ref.runId}`;
}
