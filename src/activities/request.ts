// Builds the Messages API request of one model call from the transcript and the call's settings.
// The request is built here, at the edge, so nothing in it (cache markers, tool definitions) is ever stored
// in the transcript or in history.
import type Anthropic from '@anthropic-ai/sdk';
import { COMPACTION_BETA, fromLastCompaction, withClientSummary, withInstruction } from '../core/compaction.js';
import { submitAnswerTool } from '../core/finish-tool.js';
import { TASK_BUDGET_BETA } from '../core/task-budget.js';
import type { MessageParam, ModelCallInput } from '../core/types.js';
import { serverToolDefinitions } from './server-tools.js';

/** Sent with `messages.stream` (the SDK adds `stream: true`). */
type Request = Anthropic.MessageStreamParams;

export function buildModelRequest(input: ModelCallInput, messages: MessageParam[], tools: Anthropic.Tool[]): Request {
  const finish = input.outputSchema ? submitAnswerTool(input.outputSchema) : null;
  const clientTools = finish
    ? [...tools, { name: finish.name, description: finish.description, input_schema: finish.inputSchema } as Anthropic.Tool]
    : tools;
  const allTools: Anthropic.ToolUnion[] = [
    ...clientTools,
    ...serverToolDefinitions(input.serverTools, clientTools.map((t) => t.name)),
  ];
  const cleared = input.clearToolResultsBefore ? clearToolResults(messages, input.clearToolResultsBefore) : messages;
  // With compaction, the last compaction block (or, client-side, the last summary) stands for everything before
  // it: the request stays bounded.
  const compacted = input.compactAt !== undefined ? fromLastCompaction(cleared) : cleared;
  const summarized = input.clientSummary ? withClientSummary(compacted, input.clientSummary) : compacted;
  const visible = input.instruction ? withInstruction(summarized, input.instruction) : summarized;
  const request: Request = {
    model: input.model,
    max_tokens: input.maxOutputTokens,
    messages: input.promptCaching ? withCacheBreakpoint(visible) : visible,
  };
  if (input.system) request.system = input.system;
  // Tool definitions stay even when tools are disabled: the API requires them once the conversation holds
  // tool_use or tool_result blocks.
  if (allTools.length > 0) request.tools = allTools;
  if (input.toolChoiceNone && allTools.length > 0) request.tool_choice = { type: 'none' };
  if (input.effort) request.output_config = { effort: input.effort };
  if (input.taskBudget) {
    const taskBudget = { type: 'tokens', total: input.taskBudget.total, remaining: input.taskBudget.remaining };
    request.output_config = { ...request.output_config, task_budget: taskBudget } as Request['output_config'];
  }
  if (input.thinkingBudget) request.thinking = { type: 'enabled', budget_tokens: input.thinkingBudget };
  if (input.compactAt !== undefined) {
    const edit = { type: 'compact_20260112', trigger: { type: 'input_tokens', value: input.compactAt } };
    Object.assign(request, { context_management: { edits: [edit] } });
  }
  return request;
}

/** The betas a request needs (sent as `anthropic-beta`). */
export function requestBetas(input: Pick<ModelCallInput, 'compactAt' | 'taskBudget'>): string[] {
  return [...(input.compactAt !== undefined ? [COMPACTION_BETA] : []), ...(input.taskBudget ? [TASK_BUDGET_BETA] : [])];
}

/** Marks the end of the conversation so the next call reads everything before it from the prompt cache
 * (system prompt and tools included: they come first in the cached prefix). */
export function withCacheBreakpoint(messages: MessageParam[]): MessageParam[] {
  if (messages.length === 0) return messages;
  const last = messages[messages.length - 1];
  const blocks =
    typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : [...last.content];
  if (blocks.length === 0) return messages;
  const end = blocks[blocks.length - 1];
  // Thinking blocks cannot carry cache_control; a turn that ends in one is left unmarked.
  if (end.type === 'thinking' || end.type === 'redacted_thinking') return messages;
  blocks[blocks.length - 1] = { ...end, cache_control: { type: 'ephemeral' } } as typeof end;
  return [...messages.slice(0, -1), { ...last, content: blocks } as MessageParam];
}

export const CLEARED_TOOL_RESULT = '[tool result cleared to save context; call the tool again if you need it]';

/** Context management: the tool results of messages before `before` are replaced by a short placeholder in
 * the request. The stored transcript is never rewritten (that would invalidate every cache and history). */
export function clearToolResults(messages: MessageParam[], before: number): MessageParam[] {
  return messages.map((m, i) => {
    if (i >= before || m.role !== 'user' || typeof m.content === 'string') return m;
    if (!m.content.some((b) => b.type === 'tool_result')) return m;
    const content = m.content.map((b) =>
      b.type === 'tool_result' ? { type: 'tool_result' as const, tool_use_id: b.tool_use_id, content: CLEARED_TOOL_RESULT, ...(b.is_error ? { is_error: true } : {}) } : b,
    );
    return { ...m, content } as MessageParam;
  });
}
