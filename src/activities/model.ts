// callModel: one Messages API request. Thin: read the transcript, send it, return the reply.
import Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import { HEARTBEAT_INTERVAL_MS } from '../core/policies.js';
import type { ModelCallInput, ModelReply, Usage } from '../core/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { classifyModelError, missingApiKeyFailure } from './model-errors.js';
import type { TranscriptStore } from './transcript-store.js';

export interface ModelConnection {
  /** Read by the worker from its environment; never part of workflow input or history. */
  apiKey?: string;
  baseURL?: string;
  /** Per-request timeout; explicit so the SDK never refuses a large max_tokens without streaming. */
  timeoutMs?: number;
}

export function createCallModel(deps: { connection: ModelConnection; tools: ToolRegistry; transcripts: TranscriptStore }) {
  let client: Anthropic | undefined;
  const anthropic = (): Anthropic =>
    (client ??= new Anthropic({
      apiKey: deps.connection.apiKey,
      baseURL: deps.connection.baseURL,
      // Temporal's retry policy is the one in force, so every attempt shows in the history and the UI.
      maxRetries: 0,
      timeout: deps.connection.timeoutMs ?? 9 * 60_000,
    }));

  return async function callModel(input: ModelCallInput): Promise<ModelReply> {
    if (!deps.connection.apiKey) throw missingApiKeyFailure();
    const ctx = Context.current();
    const messages = await deps.transcripts.read(input.transcript);
    const tools = deps.tools.definitions(input.tools);
    // Heartbeats tell the server this worker is alive during a long call, and carry cancellation to it.
    const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_INTERVAL_MS);
    try {
      const message = await anthropic().messages.create(
        {
          model: input.model,
          max_tokens: input.maxOutputTokens,
          messages,
          ...(input.system ? { system: input.system } : {}),
          ...(tools.length > 0 ? { tools } : {}),
        },
        { signal: ctx.cancellationSignal },
      );
      deps.transcripts.remember(input.transcript, [...messages, { role: 'assistant', content: message.content }]);
      return {
        id: message.id,
        model: message.model,
        content: message.content,
        stopReason: message.stop_reason,
        usage: usageOf(message.usage),
      };
    } catch (err) {
      // A cancelled call must surface as a cancellation, not as a provider error to retry.
      if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
      throw classifyModelError(err);
    } finally {
      clearInterval(beat);
    }
  };
}

function usageOf(u: Anthropic.Usage): Usage {
  return {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
  };
}
