// callModel: one Messages API request, streamed. Thin: read the transcript, send it, return the reply.
import Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { startHeartbeat } from './heartbeat.js';
import { MODEL_RESPONSE_START_TIMEOUT_MS, STREAM_IDLE_TIMEOUT_MS } from '../core/policies.js';
import type { ModelCallByDigest, ModelCallProgress, ModelReply } from '../core/types.js';
import { workerStoppingFailure, type LocalModelCalls } from './local-model-calls.js';
import { classifyModelError, missingApiKeyFailure, refusedFeatureFailure } from './model-errors.js';
import { NotMessagesApiError, notMessagesApiFailure } from './model-response.js';
import { requestBetas } from './request.js';
import { prepareModelRequest, replyOf, type RequestDeps } from './prepare-request.js';
import { streamMessage } from './stream.js';
import { observeModelCall, type ActivityTelemetry } from '../observability/activity-telemetry.js';

export interface ModelConnection {
  /** Read by the worker from its environment; never part of workflow input or history. */
  apiKey?: string;
  baseURL?: string;
  /** How long to wait for the response to start (status and headers; default MODEL_RESPONSE_START_TIMEOUT_MS).
   * Calls stream, so this does not bound the whole call: one that is still producing tokens is never cut. */
  timeoutMs?: number;
  /** A stream silent for this long is abandoned and the call retried (default STREAM_IDLE_TIMEOUT_MS). */
  streamIdleTimeoutMs?: number;
}

export interface ModelCallDeps extends RequestDeps {
  connection: ModelConnection;
  /** Spans and metrics of each attempt (src/observability). */
  telemetry?: ActivityTelemetry;
  /** Whether the worker of `taskQueue` is stopping, for its local model calls (`localModelCalls`): a call then ends,
   * and the run makes it again as an activity (local-model-calls.ts). Default: none. */
  localModelCalls?: (namespace: string, taskQueue: string) => LocalModelCalls | undefined;
}

/** The Messages API client on `connection`, made at its first use: the model activity's, and the batcher's. */
export function anthropicClient(connection: ModelConnection): () => Anthropic {
  let client: Anthropic | undefined;
  return () =>
    (client ??= new Anthropic({
      apiKey: connection.apiKey,
      baseURL: connection.baseURL,
      // Temporal's retry policy is the one in force (the model activity's; the batch submit's and polls'), so every
      // attempt shows in the history and the UI.
      maxRetries: 0,
      timeout: connection.timeoutMs ?? MODEL_RESPONSE_START_TIMEOUT_MS,
      // One model call, one `chat` span: ours (observeModelCall), which has the run's context, its cost and the
      // encryption rule for content. The SDK's own span (`anthropic.messages.create`, also `gen_ai.operation.name
      // = chat`) would make a GenAI backend count each call and its tokens twice (docs/observability.md).
      openTelemetry: { traces: false },
    }));
}

export function createCallModel(deps: ModelCallDeps) {
  const anthropic = anthropicClient(deps.connection);
  return async function callModel(named: ModelCallByDigest): Promise<ModelReply> {
    if (!deps.connection.apiKey) throw missingApiKeyFailure();
    const ctx = Context.current();
    const local = ctx.info.isLocal ? deps.localModelCalls?.(ctx.info.activityNamespace, ctx.info.taskQueue) : undefined;
    if (local?.stopping.aborted) throw workerStoppingFailure();
    // Heartbeats tell the server this worker is alive during a long call, carry
    // cancellation to it, and carry the call's progress (read by `status`, `watch` and the UI). A local call has
    // none: the workflow task it runs in is the worker's sign of life, and cancellation comes from the workflow.
    let progress: ModelCallProgress | undefined;
    const asked = { compaction: false, taskBudget: false };
    const stopHeartbeat = ctx.info.isLocal ? () => {} : startHeartbeat(ctx, () => progress);
    // A local call also ends when its worker stops (local-model-calls.ts). Listeners, not AbortSignal.any: the
    // worker's signal lives as long as the worker, and each call's listener is removed when the call ends.
    const endsWithWorker = new AbortController();
    const endCall = () => endsWithWorker.abort();
    if (local) for (const s of [ctx.cancellationSignal, local.stopping]) s.addEventListener('abort', endCall, { once: true });
    const observed = observeModelCall(deps.telemetry, deps.connection.baseURL);
    try {
      const { input, request } = await prepareModelRequest(named, ctx.info, deps, asked);
      observed.request(input, request.messages);
      const message = await streamMessage(anthropic(), request, {
        signal: local ? endsWithWorker.signal : ctx.cancellationSignal,
        idleTimeoutMs: deps.connection.streamIdleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS,
        onProgress: (p) => void (progress = p),
        betas: requestBetas(input),
      });
      const reply = replyOf(message, deps);
      observed.replied(reply);
      return reply;
    } catch (err) {
      observed.failed(err);
      // A cancelled call must surface as a cancellation, not as a provider error to retry.
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
      // A local call its stopping worker ended: the run makes it again as an activity (local-model-calls.ts).
      if (local?.stopping.aborted) throw workerStoppingFailure();
      if (err instanceof ApplicationFailure) throw err;
      if (err instanceof NotMessagesApiError) throw notMessagesApiFailure(err.problem, deps.connection.baseURL);
      throw refusedFeatureFailure(err, asked) ?? classifyModelError(err, deps.connection.baseURL);
    } finally {
      if (local) {
        for (const s of [ctx.cancellationSignal, local.stopping]) s.removeEventListener('abort', endCall);
      }
      stopHeartbeat();
    }
  };
}

