// What the model and tool activities report of each attempt: a `chat <model>` / `execute_tool <tool>` span (child
// of Temporal's RunActivity span, so of the run's `invoke_agent` span) with the GenAI attributes, and the metrics.
// An activity attempt runs once, so a replayed or recovered run reports no completed step again.
import { context, SpanKind, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import {
  chatContentAttributes,
  chatRequestAttributes,
  chatResponseAttributes,
  chatSpanName,
  toolAttributes,
  toolContentAttributes,
  toolOutcomeAttributes,
  toolSpanName,
} from '../core/gen-ai.js';
import { costUsd, priceFor } from '../core/pricing.js';
import type { ModelReply, ToolOutcome } from '../core/types.js';
import type { AgentMetrics } from './metrics.js';

export interface ActivityTelemetry {
  tracer?: Tracer;
  /** Message content on the spans: opted in, and the worker does not encrypt payloads. */
  captureContent?: boolean;
  /** Payloads are encrypted: error messages (which may quote content) stay off the spans too. */
  encrypts?: boolean;
  metrics?: AgentMetrics;
}

export interface ModelCallObserver {
  /** The request is known (its model, and the messages it sends). */
  request(request: { model: string; maxOutputTokens: number; system?: string }, messages: unknown[]): void;
  replied(reply: ModelReply): void;
  failed(err: unknown): void;
}

export function observeModelCall(t: ActivityTelemetry | undefined, baseURL: string | undefined): ModelCallObserver {
  const started = performance.now();
  const span = t?.tracer?.startSpan('chat', { kind: SpanKind.CLIENT }, context.active());
  let model = 'unknown';
  let sent: { system?: string; messages: unknown[] } | undefined;
  const end = (ok: boolean, reply?: ModelReply) => {
    const price = reply ? priceFor(model) : undefined;
    const cost = reply && price ? costUsd(reply.usage, price, reply.batch !== undefined) : null;
    if (reply) span?.setAttributes(chatResponseAttributes(reply, cost));
    if (reply && t?.captureContent && sent) span?.setAttributes(chatContentAttributes(sent.system, sent.messages, reply.content));
    t?.metrics?.modelCall({ model, seconds: (performance.now() - started) / 1000, ok, usage: reply?.usage, costUsd: cost });
    span?.end();
  };
  return {
    request(request, messages) {
      model = request.model;
      span?.updateName(chatSpanName(model));
      span?.setAttributes(chatRequestAttributes(request, hostOf(baseURL)));
      if (t?.captureContent) sent = { system: request.system, messages };
    },
    replied: (reply) => end(true, reply),
    failed(err) {
      recordError(span, err, t?.encrypts);
      end(false);
    },
  };
}

export async function observeToolCall(
  t: ActivityTelemetry | undefined,
  call: { name: string; toolUseId: string; input: unknown },
  run: () => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const started = performance.now();
  const span = t?.tracer?.startSpan(toolSpanName(call.name), { kind: SpanKind.INTERNAL, attributes: toolAttributes(call) }, context.active());
  const done = (error: boolean) => t?.metrics?.toolCall({ tool: call.name, seconds: (performance.now() - started) / 1000, error });
  try {
    const outcome = await run();
    span?.setAttributes(toolOutcomeAttributes(outcome));
    if (outcome.isError) span?.setStatus({ code: SpanStatusCode.ERROR, message: 'the tool returned an error result' });
    if (t?.captureContent) span?.setAttributes(toolContentAttributes(call.input, outcome));
    done(outcome.isError);
    return outcome;
  } catch (err) {
    // A call completed later (CompleteAsyncError) has not failed: its span ends here, its result comes from outside.
    if ((err as Error | undefined)?.name === 'CompleteAsyncError') span?.setAttribute('durable_agent.completes_later', true);
    else {
      recordError(span, err, t?.encrypts);
      done(true);
    }
    throw err;
  } finally {
    span?.end();
  }
}

function recordError(span: Span | undefined, err: unknown, encrypts = false): void {
  if (!span) return;
  const e = err as { name?: string; type?: string; message?: string } | undefined;
  span.setAttribute('error.type', e?.type ?? e?.name ?? 'Error');
  span.setStatus({ code: SpanStatusCode.ERROR, ...(encrypts ? {} : { message: e?.message }) });
}

function hostOf(url: string | undefined): string {
  if (!url) return 'api.anthropic.com';
  try {
    return new URL(url).hostname;
  } catch {
    return 'unknown';
  }
}
