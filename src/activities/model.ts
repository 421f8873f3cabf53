// callModel: one Messages API request, streamed. Thin: read the transcript, send it, return the reply.
import Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { startHeartbeat } from './heartbeat.js';
import { MODEL_RESPONSE_START_TIMEOUT_MS, STREAM_IDLE_TIMEOUT_MS } from '../core/policies.js';
import type { ModelCallByDigest, ModelCallInput, ModelCallProgress, ModelReply, TranscriptRef, Usage } from '../core/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { workerStoppingFailure, type LocalModelCalls } from './local-model-calls.js';
import { classifyModelError, missingApiKeyFailure, refusedFeatureFailure } from './model-errors.js';
import { messageShapeProblem, NotMessagesApiError, notMessagesApiFailure } from './model-response.js';
import { assertFitsInHistory } from './payload-limit.js';
import { buildModelRequest, requestBetas } from './request.js';
import { assertHasServers, runToolDefinitions, type RecordedToolsStore } from './recorded-tools.js';
import { streamMessage } from './stream.js';
import type { ModelSettingsStore } from './model-settings.js';
import type { TranscriptStore } from './transcript-store.js';
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

export interface ModelCallDeps {
  connection: ModelConnection;
  tools: ToolRegistry;
  transcripts: TranscriptStore;
  /** The MCP tool definitions runs recorded when they started. */
  recordedTools: RecordedToolsStore;
  /** The MCP servers this worker has. */
  mcpServers: () => string[];
  /** The model-call settings runs name by digest. */
  modelSettings: ModelSettingsStore;
  /** Spans and metrics of each attempt (src/observability). */
  telemetry?: ActivityTelemetry;
  /** Whether the worker of `taskQueue` is stopping, for its local model calls (`localModelCalls`): a call then ends,
   * and the run makes it again as an activity (local-model-calls.ts). Default: none. */
  localModelCalls?: (namespace: string, taskQueue: string) => LocalModelCalls | undefined;
}

export function createCallModel(deps: ModelCallDeps) {
  let client: Anthropic | undefined;
  const anthropic = (): Anthropic =>
    (client ??= new Anthropic({
      apiKey: deps.connection.apiKey,
      baseURL: deps.connection.baseURL,
      // Temporal's retry policy is the one in force, so every attempt shows in the history and the UI.
      maxRetries: 0,
      timeout: deps.connection.timeoutMs ?? MODEL_RESPONSE_START_TIMEOUT_MS,
      // One model call, one `chat` span: ours (observeModelCall), which has the run's context, its cost and the
      // encryption rule for content. The SDK's own span (`anthropic.messages.create`, also `gen_ai.operation.name
      // = chat`) would make a GenAI backend count each call and its tokens twice (docs/observability.md).
      openTelemetry: { traces: false },
    }));

  return async function callModel(named: ModelCallInput | ModelCallByDigest): Promise<ModelReply> {
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
      // The transcript first: on a retried call that finds nothing cached (its worker died) it releases the run's
      // stickiness, so the settings query that may follow goes to a live worker at once instead of waiting out the
      // sticky-queue timeout on the dead one's queue.
      const messages = await deps.transcripts.read(transcriptOf(named, ctx.info.workflowExecution), { retried: ctx.info.attempt > 1 });
      const input = await withSettings(named, ctx.info.workflowExecution, deps.modelSettings);
      asked.compaction = input.compactAt !== undefined;
      asked.taskBudget = input.taskBudget !== undefined;
      const recorded = input.recordedTools ? await deps.recordedTools.read(input.recordedTools, input.transcript) : undefined;
      if (recorded) assertHasServers(recorded, deps.mcpServers());
      const tools = runToolDefinitions(input.tools, recorded, (names) => toolDefinitions(deps.tools, names));
      const request = buildModelRequest(input, messages, tools);
      observed.request(input, request.messages);
      const message = await streamMessage(anthropic(), request, {
        signal: local ? endsWithWorker.signal : ctx.cancellationSignal,
        idleTimeoutMs: deps.connection.streamIdleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS,
        onProgress: (p) => void (progress = p),
        betas: requestBetas(input),
      });
      const problem = messageShapeProblem(message);
      if (problem) throw notMessagesApiFailure(problem, deps.connection.baseURL);
      const reply: ModelReply = {
        id: message.id,
        model: message.model,
        content: message.content,
        stopReason: message.stop_reason,
        usage: usageOf(message.usage),
        needsApproval: approvalsFor(deps.tools, message.content),
      };
      const compaction = compactionUsageOf(message.usage);
      if (compaction) reply.compactionUsage = compaction;
      assertFitsInHistory(reply, 'model reply');
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

/** The transcript a call reads: named by length since model-settings-by-digest (of the run that scheduled it). */
function transcriptOf(named: ModelCallInput | ModelCallByDigest, run: { workflowId: string; runId: string } | undefined): TranscriptRef {
  if (!('settings' in named)) return named.transcript;
  if (!run) throw ApplicationFailure.nonRetryable('a model call named by digest must be scheduled by an agent run', 'BadModelCall');
  return { workflowId: run.workflowId, runId: run.runId, messageCount: named.transcript.messageCount };
}

/** Since the patch model-settings-by-digest a call names its run's settings by digest (read them: cache, else
 * query) and its transcript by length (the run is the one that scheduled this activity). */
async function withSettings(
  named: ModelCallInput | ModelCallByDigest,
  run: { workflowId: string; runId: string } | undefined,
  store: ModelSettingsStore,
): Promise<ModelCallInput> {
  if (!('settings' in named)) return named;
  if (!run) throw ApplicationFailure.nonRetryable('a model call named by digest must be scheduled by an agent run', 'BadModelCall');
  const { settings, ...rest } = named;
  return { ...rest, ...(await store.read(settings, run)), transcript: { ...run, messageCount: named.transcript.messageCount } };
}

function usageOf(u: Anthropic.Usage): Usage {
  const usage: Usage = {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
  };
  // Web searches are billed per search: kept, so the cost and the budget guard count them.
  const server = u.server_tool_use;
  if (server && (server.web_search_requests > 0 || server.web_fetch_requests > 0)) {
    usage.server_tool_use = { web_search_requests: server.web_search_requests ?? 0, web_fetch_requests: server.web_fetch_requests ?? 0 };
  }
  return usage;
}

/** The usage of the compaction iterations of a call (`usage.iterations`), which the top-level usage leaves out. */
function compactionUsageOf(u: Anthropic.Usage): Usage | undefined {
  const iterations = (u as { iterations?: Array<Partial<Usage> & { type?: string }> | null }).iterations ?? [];
  const compactions = iterations.filter((i) => i.type === 'compaction');
  if (compactions.length === 0) return undefined;
  const sum = (k: keyof Omit<Usage, 'server_tool_use'>) => compactions.reduce((a, i) => a + ((i[k] as number | undefined) ?? 0), 0);
  return {
    input_tokens: sum('input_tokens'),
    output_tokens: sum('output_tokens'),
    cache_creation_input_tokens: sum('cache_creation_input_tokens'),
    cache_read_input_tokens: sum('cache_read_input_tokens'),
  };
}

/** A run that names a tool this worker lacks cannot be fixed by retrying: fail it with the names. */
function toolDefinitions(registry: ToolRegistry, names: string[]): Anthropic.Tool[] {
  const missing = names.filter((n) => !registry.get(n));
  if (missing.length > 0) {
    throw ApplicationFailure.create({
      type: 'UnknownTool',
      nonRetryable: true,
      message:
        `this run uses tool(s) ${missing.join(', ')}, which this worker does not have ` +
        `(it has: ${registry.names().join(', ') || 'none'}); run a worker that registers them`,
    });
  }
  return registry.definitions(names);
}

/** The tools of this reply whose definition on this worker asks for a human decision before each call. */
function approvalsFor(registry: ToolRegistry, content: Anthropic.ContentBlock[]): string[] | undefined {
  const names = content.flatMap((b) => (b.type === 'tool_use' && registry.get(b.name)?.needsApproval ? [b.name] : []));
  return names.length > 0 ? [...new Set(names)] : undefined;
}
