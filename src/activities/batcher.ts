// One per worker: gathers the batch-mode model calls of all the worker's runs over a short window into one Message
// Batch, and answers the runs' polls from one status read and one download of the results per batch, so 20 runs
// waiting on one batch make one request where they would have made 20. Everything here is a cache: a worker that
// restarts knows nothing, and each run still has its batch id and request id in its history.
import type Anthropic from '@anthropic-ai/sdk';
import { batchOptions, type ModelBatchOptions } from '../core/batch.js';
import { anthropicClient, type ModelConnection } from './model.js';

type BatchResult = Anthropic.Messages.MessageBatchResult;
type BatchRequestParams = Anthropic.Messages.MessageCreateParamsNonStreaming;

/** A poll's raw answer: still running (and the batch's age), or the request's result. */
export type RawPoll = { status: 'pending'; ageMs: number } | { status: 'ended'; result: BatchResult };

/** Calls gathered for the next batch: one per set of betas (a batch carries one `anthropic-beta` header). */
interface Gathering {
  requests: Map<string, BatchRequestParams>;
  /** The size of the requests' JSON so far. */
  bytes: number;
  created: Promise<string>;
  /** Submits it now, before its window ends (once). */
  send(): void;
}

/** The Message Batches API takes at most 100,000 requests or 256 MB in one batch (a batch past either is refused
 * whole, every run in it failing): a gathering that would pass them goes out at once, the call that did not fit
 * opening the next. The bytes stay under the API's with room for the batch's own JSON. */
export const BATCH_LIMITS = { maxRequests: 100_000, maxBytes: 200 * 1024 * 1024 };

/** What this worker knows of a batch: the requests it put in (when it created it), which runs no longer need theirs,
 * its last status and its results once downloaded. */
interface KnownBatch {
  customIds?: Set<string>;
  released: Set<string>;
  status?: { read: Promise<Anthropic.Messages.MessageBatch>; at: number };
  results?: Promise<Map<string, BatchResult>>;
  lastUsed: number;
}

/** A batch this worker has not used for this long is forgotten (its results are read again if a run still asks). */
const FORGET_AFTER_MS = 15 * 60_000;

export class ModelBatcher {
  readonly options: Required<ModelBatchOptions>;
  readonly stats = { batchesCreated: 0, requestsSubmitted: 0, statusReads: 0, resultDownloads: 0, batchesCanceled: 0 };
  readonly #open = new Map<string, Gathering>();
  readonly #batches = new Map<string, KnownBatch>();

  constructor(
    private readonly client: () => Anthropic,
    options: ModelBatchOptions = {},
    private readonly limits: typeof BATCH_LIMITS = BATCH_LIMITS,
  ) {
    this.options = batchOptions(options);
  }

  /** Adds a request to the batch being gathered (started by the first request, submitted `windowMs` later, or as soon
   * as it is full: BATCH_LIMITS) and resolves with the id of the batch it went out in. The same custom id twice in one
   * window is one request. */
  submit(customId: string, params: BatchRequestParams, betas: string[]): Promise<string> {
    const key = betas.join(',');
    const bytes = Buffer.byteLength(JSON.stringify(params)) + customId.length + 32;
    let gathering = this.#open.get(key);
    const full = (g: Gathering) => g.requests.size >= this.limits.maxRequests || g.bytes + bytes > this.limits.maxBytes;
    if (gathering && !gathering.requests.has(customId) && full(gathering)) {
      gathering.send();
      gathering = undefined;
    }
    if (!gathering) {
      const requests = new Map<string, BatchRequestParams>();
      let send = () => {};
      const created = new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => send(), this.options.windowMs);
        send = () => {
          send = () => {};
          clearTimeout(timer);
          if (this.#open.get(key) === opened) this.#open.delete(key);
          this.#create(requests, key).then(resolve, reject);
        };
      });
      // Each caller awaits it; one that has gone (a cancelled activity) must not leave an unhandled rejection.
      created.catch(() => undefined);
      const opened: Gathering = { requests, bytes: 0, created, send: () => send() };
      gathering = opened;
      this.#open.set(key, opened);
    }
    if (!gathering.requests.has(customId)) gathering.bytes += bytes;
    gathering.requests.set(customId, params);
    return gathering.created;
  }

  async #create(requests: Map<string, BatchRequestParams>, betas: string): Promise<string> {
    const body = { requests: [...requests].map(([custom_id, params]) => ({ custom_id, params })) };
    const batch = await this.client().messages.batches.create(body, betas ? { headers: { 'anthropic-beta': betas } } : undefined);
    this.stats.batchesCreated++;
    this.stats.requestsSubmitted += requests.size;
    this.#batches.set(batch.id, { customIds: new Set(requests.keys()), released: new Set(), lastUsed: Date.now() });
    return batch.id;
  }

  /** Where request `customId` of `batchId` is. A status read is shared by the polls that come within a second of
   * each other; the results are downloaded once per batch and kept for the polls that follow. */
  async poll(batchId: string, customId: string): Promise<RawPoll> {
    const known = this.#known(batchId);
    const batch = await this.#status(batchId, known);
    if (batch.processing_status !== 'ended') return { status: 'pending', ageMs: Date.now() - Date.parse(batch.created_at) };
    known.results ??= this.#download(batchId);
    const results = await known.results.catch((err: unknown) => {
      known.results = undefined; // the next poll downloads again
      throw err;
    });
    const result = results.get(customId);
    return {
      status: 'ended',
      result: result ?? { type: 'errored', error: { type: 'error', error: { type: 'api_error', message: `the results of batch ${batchId} have no request ${customId}` }, request_id: null } },
    };
  }

  /** A run no longer needs its request (it was cancelled, or its deadline came). The batch is cancelled when no run
   * needs any of its requests: every request this worker put in it was released, or, for a batch this worker does not
   * know (another worker made it, or this one restarted), when it holds this one request only. */
  async release(batchId: string, customId: string): Promise<{ canceled: boolean }> {
    const known = this.#known(batchId);
    known.released.add(customId);
    const unneeded = known.customIds
      ? [...known.customIds].every((id) => known.released.has(id))
      : await this.#holdsOnly(batchId, known);
    if (!unneeded) return { canceled: false };
    const batch = await this.client().messages.batches.cancel(batchId);
    known.status = { read: Promise.resolve(batch), at: Date.now() };
    this.stats.batchesCanceled++;
    return { canceled: true };
  }

  async #holdsOnly(batchId: string, known: KnownBatch): Promise<boolean> {
    const batch = await this.#status(batchId, known);
    const c = batch.request_counts;
    return batch.processing_status === 'in_progress' && c.processing + c.succeeded + c.errored + c.canceled + c.expired === 1;
  }

  #known(batchId: string): KnownBatch {
    const now = Date.now();
    for (const [id, b] of this.#batches) if (now - b.lastUsed > FORGET_AFTER_MS) this.#batches.delete(id);
    let known = this.#batches.get(batchId);
    if (!known) this.#batches.set(batchId, (known = { released: new Set(), lastUsed: now }));
    known.lastUsed = now;
    return known;
  }

  #status(batchId: string, known: KnownBatch): Promise<Anthropic.Messages.MessageBatch> {
    const freshFor = Math.min(1_000, this.options.pollMs / 2);
    if (known.status && Date.now() - known.status.at < freshFor) return known.status.read;
    const read = this.client().messages.batches.retrieve(batchId);
    this.stats.statusReads++;
    known.status = { read, at: Date.now() };
    read.catch(() => {
      if (known.status?.read === read) known.status = undefined; // a failed read is not shared with later polls
    });
    return read;
  }

  async #download(batchId: string): Promise<Map<string, BatchResult>> {
    this.stats.resultDownloads++;
    const results = new Map<string, BatchResult>();
    for await (const line of await this.client().messages.batches.results(batchId)) results.set(line.custom_id, line.result);
    return results;
  }
}

export type BatcherStats = ModelBatcher['stats'];

/** A worker's batcher on its Messages API connection (the key and endpoint the worker reads from its environment). */
export function batcherFor(connection: ModelConnection, options?: ModelBatchOptions, limits?: typeof BATCH_LIMITS): ModelBatcher {
  return new ModelBatcher(anthropicClient(connection), options, limits);
}
