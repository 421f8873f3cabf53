// The scripted model's Message Batches API (`/v1/messages/batches`: create, retrieve, results as JSONL, cancel, list),
// so batch mode runs offline through the real SDK. Each request of a batch is answered as the same direct request
// would be (server.ts does that: the script's turn, its hold and delay, its error); the batch ends once every request
// has its result, and the results come back in the reverse of the submitted order, since the API promises no order.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { text as readBody } from 'node:stream/consumers';
import { isAuthenticated, sendError, sendJson } from './http.js';

/** What one request of a batch came to: its Message, or its error (`expired`: the script said it expires). */
export interface BatchAnswer {
  turn: number | null;
  message?: Record<string, unknown>;
  error?: { type: string; message: string };
  expired?: boolean;
}

export interface RecordedBatchRequest {
  customId: string;
  /** The request's `params`. */
  body: unknown;
  turn: number | null;
  /** Its result once the batch ended (a canceled batch's unfinished requests: `canceled`). */
  result?: 'succeeded' | 'errored' | 'canceled' | 'expired';
  messageId?: string;
}

export interface RecordedBatch {
  id: string;
  requests: RecordedBatchRequest[];
  /** The `anthropic-beta` header of its creation. */
  betas?: string;
  processingStatus: 'in_progress' | 'canceling' | 'ended';
  /** GETs of the batch, and downloads of its results: what a worker's shared polling saves. */
  statusReads: number;
  resultDownloads: number;
  canceled: boolean;
}

/** custom_id as the API takes it. */
const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_REQUESTS = 100_000;

interface Batch extends RecordedBatch {
  createdAt: string;
  endedAt: string | null;
  cancelAt: string | null;
  results: Map<string, Record<string, unknown>>;
}

export class ScriptedBatches {
  readonly #batches = new Map<string, Batch>();
  readonly recorded: RecordedBatch[] = [];

  constructor(
    private readonly answer: (params: unknown, betas: string | undefined) => Promise<BatchAnswer>,
    private readonly baseUrl: () => string,
  ) {}

  /** Forgets every batch (the scripted model's `reset`). */
  clear(): void {
    this.#batches.clear();
    this.recorded.length = 0;
  }

  /** Answers a request under `/v1/messages/batches`. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string, requestId: string): Promise<void> {
    const raw = await readBody(req);
    if (!isAuthenticated(req)) return sendError(res, requestId, 401, 'authentication_error', 'x-api-key header or Authorization: Bearer header is required');
    const headers = { 'request-id': requestId };
    const [, id, action] = /^\/v1\/messages\/batches(?:\/([^/]+))?(?:\/([a-z]+))?$/.exec(path) ?? [];
    if (req.method === 'POST' && !id) return this.#create(res, raw, req.headers['anthropic-beta'], requestId);
    if (req.method === 'GET' && !id) {
      const data = [...this.#batches.values()].reverse().map((b) => this.#json(b));
      return sendJson(res, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null }, headers);
    }
    const batch = id ? this.#batches.get(id) : undefined;
    if (!batch) return sendError(res, requestId, 404, 'not_found_error', `Not found: ${req.method} ${path}`);
    if (req.method === 'GET' && !action) {
      batch.statusReads++;
      return sendJson(res, 200, this.#json(batch), headers);
    }
    if (req.method === 'GET' && action === 'results') {
      if (batch.processingStatus !== 'ended') return sendError(res, requestId, 400, 'invalid_request_error', `Batch ${batch.id} has not ended: its results are not ready`);
      batch.resultDownloads++;
      const lines = batch.requests.map((r) => JSON.stringify({ custom_id: r.customId, result: batch.results.get(r.customId) })).reverse();
      res.writeHead(200, { ...headers, 'content-type': 'application/binary' });
      res.end(lines.join('\n') + '\n');
      return;
    }
    if (req.method === 'POST' && action === 'cancel') {
      this.#cancel(batch);
      return sendJson(res, 200, this.#json(batch), headers);
    }
    return sendError(res, requestId, 404, 'not_found_error', `Not found: ${req.method} ${path}`);
  }

  #create(res: ServerResponse, raw: string, beta: string | string[] | undefined, requestId: string): void {
    const bad = (message: string) => sendError(res, requestId, 400, 'invalid_request_error', message);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch (err) {
      return bad(`There was an issue with your request body: it is not valid JSON (${(err as Error).message})`);
    }
    const requests = (body as { requests?: unknown })?.requests;
    if (!Array.isArray(requests) || requests.length < 1 || requests.length > MAX_REQUESTS) return bad(`requests: 1 to ${MAX_REQUESTS} requests are required`);
    const seen = new Set<string>();
    for (const [i, r] of requests.entries()) {
      const customId = (r as { custom_id?: unknown })?.custom_id;
      if (typeof customId !== 'string' || !CUSTOM_ID.test(customId)) return bad(`requests.${i}.custom_id: must match ${CUSTOM_ID.source}`);
      if (seen.has(customId)) return bad(`requests.${i}.custom_id: "${customId}" is not unique in the batch`);
      seen.add(customId);
      if (typeof (r as { params?: unknown }).params !== 'object' || (r as { params?: unknown }).params === null) return bad(`requests.${i}.params: an object is required`);
    }
    const betas = Array.isArray(beta) ? beta.join(',') : beta;
    const batch: Batch = {
      id: `msgbatch_${randomBytes(12).toString('hex')}`,
      requests: requests.map((r: { custom_id: string; params: unknown }) => ({ customId: r.custom_id, body: r.params, turn: null })),
      ...(betas ? { betas } : {}),
      processingStatus: 'in_progress',
      statusReads: 0,
      resultDownloads: 0,
      canceled: false,
      createdAt: new Date().toISOString(),
      endedAt: null,
      cancelAt: null,
      results: new Map(),
    };
    this.#batches.set(batch.id, batch);
    this.recorded.push(batch);
    void Promise.all(batch.requests.map((r) => this.#process(batch, r, betas))).then(() => this.#end(batch));
    sendJson(res, 200, this.#json(batch), { 'request-id': requestId });
  }

  async #process(batch: Batch, request: RecordedBatchRequest, betas: string | undefined): Promise<void> {
    const answer = await this.answer(request.body, betas).catch((err: unknown) => ({ turn: null, error: { type: 'api_error', message: String(err) } }) as BatchAnswer);
    request.turn = answer.turn;
    if (batch.results.has(request.customId)) return; // canceled meanwhile
    let result: Record<string, unknown>;
    if (answer.message) {
      result = { type: 'succeeded', message: answer.message };
      request.messageId = answer.message.id as string;
    } else if (answer.expired) result = { type: 'expired' };
    else result = { type: 'errored', error: { type: 'error', error: answer.error, request_id: `req_${randomBytes(12).toString('hex')}` } };
    request.result = result.type as RecordedBatchRequest['result'];
    batch.results.set(request.customId, result);
  }

  /** Cancelling ends the batch at once here: the requests without a result yet are `canceled`. */
  #cancel(batch: Batch): void {
    if (batch.processingStatus === 'ended') return;
    batch.canceled = true;
    batch.cancelAt = new Date().toISOString();
    for (const r of batch.requests) {
      if (batch.results.has(r.customId)) continue;
      r.result = 'canceled';
      batch.results.set(r.customId, { type: 'canceled' });
    }
    this.#end(batch);
  }

  #end(batch: Batch): void {
    if (batch.processingStatus === 'ended') return;
    batch.processingStatus = 'ended';
    batch.endedAt = new Date().toISOString();
  }

  #json(b: Batch) {
    const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
    for (const r of b.requests) counts[b.processingStatus === 'ended' ? r.result ?? 'canceled' : 'processing']++;
    return {
      id: b.id,
      type: 'message_batch',
      processing_status: b.processingStatus,
      request_counts: counts,
      created_at: b.createdAt,
      ended_at: b.endedAt,
      expires_at: new Date(Date.parse(b.createdAt) + 24 * 3600_000).toISOString(),
      cancel_initiated_at: b.cancelAt,
      archived_at: null,
      results_url: b.processingStatus === 'ended' ? `${this.baseUrl()}/v1/messages/batches/${b.id}/results` : null,
    };
  }
}
