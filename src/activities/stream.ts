// One Messages API request as a stream (`messages.stream`), reassembled into the same final Message the
// non-streaming call returns. Streaming is what lets a long call live: no request timeout cuts a call that is
// still producing tokens (the SDK's timeout only bounds the time to the response's start), while a stream that
// goes silent is abandoned after an idle timeout. Progress (tokens so far, last words) is reported as it comes.
import { AsyncLocalStorage } from 'node:async_hooks';
import Anthropic from '@anthropic-ai/sdk';
import { MODEL_PROGRESS_WORDS } from '../core/policies.js';
import type { ModelCallProgress } from '../core/types.js';
import { NotMessagesApiError, streamResponseProblem } from './model-response.js';

export interface StreamOptions {
  /** The activity's cancellation. */
  signal: AbortSignal;
  /** A stream that delivers no bytes (events or pings) for this long is abandoned. */
  idleTimeoutMs: number;
  /** Called on every event; the caller decides when to report it (heartbeats are throttled anyway). */
  onProgress?: (progress: ModelCallProgress) => void;
  /** Betas the request uses (compaction): it then goes through `beta.messages`, whose stream knows their blocks. */
  betas?: string[];
}

/** The response started, then went silent for longer than the idle timeout. Retryable: the call is made again. */
export class StreamIdleError extends Error {
  override name = 'StreamIdleError';
}

/** The response started, then broke off before `message_stop` (a cut connection, a proxy timeout). Retryable:
 * the partial reply is thrown away and the call is made again as a whole. */
export class StreamInterruptedError extends Error {
  override name = 'StreamInterruptedError';
}

/** What the shared fetch (watchedFetch) tells the call in progress about its response. */
interface ResponseWatch {
  /** The response (status and headers) arrived. */
  started(): void;
  /** A 200 that is not an event stream. */
  notMessagesApi(error: NotMessagesApiError): void;
  /** Bytes arrived (or the response started): the idle timer starts again. */
  bytes(): void;
}

/** The watch of the call in progress: a client's fetch is fixed when the client is made, so the call it serves is
 * found in the async context the call runs in. */
const watches = new AsyncLocalStorage<ResponseWatch>();

/** Each client's copy whose fetch is watchedFetch, made once per client: making it for every call (withOptions builds
 * a whole client) cost about 0.4 ms of CPU a call. */
const watchedClients = new WeakMap<Anthropic, Anthropic>();

function watchedClient(client: Anthropic): Anthropic {
  let watched = watchedClients.get(client);
  if (!watched) {
    watched = client.withOptions({ fetch: watchedFetch });
    watchedClients.set(client, watched);
  }
  return watched;
}

// The SDK skips `ping` events before they reach a listener, so silence is measured on the bytes themselves.
const watchedFetch: typeof fetch = async (url, init) => {
  const watch = watches.getStore();
  const response = await fetch(url, init);
  if (!watch) return response;
  watch.started();
  if (response.ok) {
    // A 200 that is not an event stream (an HTML page, `{}`) would end as "no message" and be retried forever.
    const contentType = response.headers.get('content-type');
    if (!/text\/event-stream/i.test(contentType ?? '')) {
      const error = new NotMessagesApiError(streamResponseProblem(contentType, await response.text()) ?? 'no event stream');
      watch.notMessagesApi(error);
      throw error;
    }
  }
  watch.bytes();
  if (!response.body) return response;
  // Read through, each chunk restarting the idle timer (a pull source: lighter than a TransformStream and its pipe).
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      watch.bytes();
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
};

export async function streamMessage(client: Anthropic, request: Anthropic.MessageStreamParams, options: StreamOptions): Promise<Anthropic.Message> {
  const progress = new ProgressTracker();
  const abort = new AbortController();
  const onCancel = () => abort.abort(options.signal.reason);
  if (options.signal.aborted) onCancel();
  else options.signal.addEventListener('abort', onCancel, { once: true });

  let responseStarted = false;
  let notMessagesApi: NotMessagesApiError | undefined;
  let idle: StreamIdleError | undefined;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const armIdleTimer = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idle = new StreamIdleError(
        `the response stream sent nothing for ${Math.round(options.idleTimeoutMs / 1000)} s after ${progress.events} events; ` +
          'the call is retried as a whole',
      );
      abort.abort(idle);
    }, options.idleTimeoutMs);
  };
  const watch: ResponseWatch = {
    started: () => void (responseStarted = true),
    notMessagesApi: (error) => void (notMessagesApi = error),
    bytes: armIdleTimer,
  };

  try {
    const withFetch = watchedClient(client);
    const stream = watches.run(watch, () =>
      options.betas?.length
        ? (withFetch.beta.messages.stream({ ...request, betas: options.betas } as Anthropic.Beta.Messages.MessageCreateParamsStreaming, {
            signal: abort.signal,
          }) as unknown as ReturnType<typeof withFetch.messages.stream>)
        : withFetch.messages.stream(request, { signal: abort.signal }),
    );
    stream.on('streamEvent', (event: Anthropic.MessageStreamEvent) => {
      progress.add(event);
      options.onProgress?.(progress.snapshot());
    });
    return await stream.finalMessage();
  } catch (err) {
    if (options.signal.aborted) throw options.signal.reason ?? err;
    if (idle) throw idle;
    if (notMessagesApi) throw notMessagesApi;
    // An API error (an HTTP error status, or an `error` event inside the stream) is classified by its type.
    if (err instanceof Anthropic.APIError || !responseStarted) throw err;
    const why = err instanceof Error ? (err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message) : String(err);
    throw new StreamInterruptedError(`the response stream broke off after ${progress.events} events (${why}); the call is retried as a whole`, {
      cause: err,
    });
  } finally {
    clearTimeout(idleTimer);
    options.signal.removeEventListener('abort', onCancel);
  }
}

/** Turns stream events into the small progress object a heartbeat carries. */
export class ProgressTracker {
  events = 0;
  #chars = 0;
  #finalOutputTokens: number | undefined;
  #words = '';
  #truncated = false;
  #producing = 'waiting';
  readonly #started = Date.now();

  add(event: Anthropic.MessageStreamEvent): void {
    this.events++;
    switch (event.type) {
      case 'content_block_start': {
        const block = event.content_block;
        this.#producing = 'name' in block && typeof block.name === 'string' ? `${block.type} ${block.name}` : block.type;
        if (block.type === 'text' || block.type === 'thinking') {
          this.#words = '';
          this.#truncated = false;
        }
        break;
      }
      case 'content_block_delta': {
        const d = event.delta;
        const piece = d.type === 'text_delta' ? d.text : d.type === 'thinking_delta' ? d.thinking : d.type === 'input_json_delta' ? d.partial_json : '';
        this.#chars += piece.length;
        if (d.type === 'text_delta' || d.type === 'thinking_delta') this.#appendWords(piece);
        break;
      }
      case 'message_delta':
        this.#finalOutputTokens = event.usage.output_tokens;
        break;
    }
  }

  snapshot(): ModelCallProgress {
    return {
      outputTokens: this.#finalOutputTokens ?? Math.ceil(this.#chars / 4),
      lastWords: this.#lastWords(),
      producing: this.#producing,
      events: this.events,
      elapsedMs: Date.now() - this.#started,
    };
  }

  #appendWords(piece: string): void {
    // Code points, not UTF-16 units, so the cut never splits an emoji.
    const points = Array.from((this.#words + piece).replace(/\s+/g, ' '));
    this.#truncated ||= points.length > MODEL_PROGRESS_WORDS;
    this.#words = points.slice(-MODEL_PROGRESS_WORDS).join('');
  }

  /** The kept tail, starting at a whole word when the beginning was cut off. */
  #lastWords(): string {
    const words = this.#words.trim();
    if (!this.#truncated) return words;
    const space = words.indexOf(' ');
    return `…${space > 0 && space < words.length - 1 ? words.slice(space + 1) : words}`;
  }
}
