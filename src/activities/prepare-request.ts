// What a direct call (callModel) and a batch request (submitModelBatchRequest) share: the Messages API request of
// one model call, built from the run's transcript and settings (the worker's caches, else queries), and the
// ModelReply a returned Message becomes.
import type Anthropic from '@anthropic-ai/sdk';
import type { Info } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ModelCallByDigest, ModelCallInput, ModelReply, Usage } from '../core/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { workerLacksFailure } from './model-errors.js';
import { messageShapeProblem, notMessagesApiFailure } from './model-response.js';
import { assertFitsInHistory } from './payload-limit.js';
import { buildModelRequest } from './request.js';
import { assertHasServers, runToolDefinitions } from './recorded-tools.js';
import type { ModelSettingsStore } from './model-settings.js';
import type { RecordedToolsStore } from './recorded-tools.js';
import type { TranscriptStore } from './transcript-store.js';

/** Where a call's transcript, settings and tool definitions come from (the worker's stores and registry). */
export interface RequestDeps {
  transcripts: TranscriptStore;
  modelSettings: ModelSettingsStore;
  recordedTools: RecordedToolsStore;
  /** The MCP servers this worker has. */
  mcpServers: () => string[];
  tools: ToolRegistry;
}

/** The request of one model call, and the call's settings. `asked` is filled in as soon as the settings are known:
 * the features the request carries, for telling a refused feature from another 400. */
export async function prepareModelRequest(
  named: ModelCallByDigest,
  info: Pick<Info, 'workflowExecution' | 'attempt'>,
  deps: RequestDeps,
  asked: { compaction: boolean; taskBudget: boolean } = { compaction: false, taskBudget: false },
): Promise<{ input: ModelCallInput; request: Anthropic.MessageStreamParams }> {
  // The transcript first: on a retried call that finds nothing cached (its worker died) it releases the run's
  // stickiness, so the settings query that may follow goes to a live worker at once instead of waiting out the
  // sticky-queue timeout on the dead one's queue.
  const run = info.workflowExecution;
  if (!run) throw ApplicationFailure.nonRetryable('a model call must be scheduled by an agent run', 'BadModelCall');
  const transcript = { ...run, messageCount: named.transcript.messageCount };
  const messages = await deps.transcripts.read(transcript, { retried: info.attempt > 1 });
  const { settings, ...rest } = named;
  const input: ModelCallInput = { ...rest, ...(await deps.modelSettings.read(settings, run)), transcript };
  asked.compaction = input.compactAt !== undefined;
  asked.taskBudget = input.taskBudget !== undefined;
  const recorded = input.recordedTools ? await deps.recordedTools.read(input.recordedTools, input.transcript) : undefined;
  if (recorded) assertHasServers(recorded, deps.mcpServers());
  const tools = runToolDefinitions(input.tools, recorded, (names) => toolDefinitions(deps.tools, names));
  return { input, request: buildModelRequest(input, messages, tools) };
}

/** The part of a returned Message the workflow keeps (checked to be a Message, and to fit in history). */
export function replyOf(message: Anthropic.Message, deps: { tools: ToolRegistry; connection: { baseURL?: string } }): ModelReply {
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
  return reply;
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
  if (missing.length > 0) throw workerLacksFailure('uses tool(s)', missing, 'have', registry.names(), 'run a worker that registers them');
  return registry.definitions(names);
}

/** The tools of this reply whose definition on this worker asks for a human decision before each call. */
function approvalsFor(registry: ToolRegistry, content: Anthropic.ContentBlock[]): string[] | undefined {
  const names = content.flatMap((b) => (b.type === 'tool_use' && registry.get(b.name)?.needsApproval ? [b.name] : []));
  return names.length > 0 ? [...new Set(names)] : undefined;
}
