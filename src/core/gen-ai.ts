// The OpenTelemetry GenAI semantic-convention attributes of the agent's spans (`invoke_agent <name>`,
// `chat <model>`, `execute_tool <tool>`), built from our own types. Pure: the activities and the workflow attach them.
import { promptTokens } from './transcript.js';
import type { AgentStatusView, ToolOutcome, Usage } from './types.js';

export const PROVIDER = 'anthropic';
type Attributes = Record<string, string | number | boolean | string[]>;

export function chatSpanName(model: string): string {
  return `chat ${model}`;
}
export function toolSpanName(tool: string): string {
  return `execute_tool ${tool}`;
}
export function agentSpanName(agent: string): string {
  return `invoke_agent ${agent}`;
}

/** Before the call: what was asked. */
export function chatRequestAttributes(request: { model: string; maxOutputTokens: number }, serverAddress?: string): Attributes {
  return {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': PROVIDER,
    'gen_ai.request.model': request.model,
    'gen_ai.request.max_tokens': request.maxOutputTokens,
    ...(serverAddress ? { 'server.address': serverAddress } : {}),
  };
}

/** After the call: what came back, and what it cost (null: the model's price is unknown). */
export function chatResponseAttributes(reply: { id: string; model: string; stopReason: string | null; usage: Usage }, costUsd: number | null): Attributes {
  const u = reply.usage;
  return {
    'gen_ai.response.id': reply.id,
    'gen_ai.response.model': reply.model,
    'gen_ai.response.finish_reasons': [reply.stopReason ?? 'unknown'],
    // The conventions count cached prompt tokens as input tokens too (Anthropic's input_tokens leaves them out).
    'gen_ai.usage.input_tokens': promptTokens(u),
    'gen_ai.usage.output_tokens': u.output_tokens,
    'gen_ai.usage.cache_read.input_tokens': u.cache_read_input_tokens,
    'gen_ai.usage.cache_creation.input_tokens': u.cache_creation_input_tokens,
    ...(costUsd !== null ? { 'durable_agent.cost_usd': costUsd } : {}),
  };
}

export function toolAttributes(call: { name: string; toolUseId: string }): Attributes {
  return {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.provider.name': PROVIDER,
    'gen_ai.tool.name': call.name,
    'gen_ai.tool.call.id': call.toolUseId,
    'gen_ai.tool.type': 'function',
  };
}

export function toolOutcomeAttributes(outcome: ToolOutcome): Attributes {
  return outcome.isError ? { 'error.type': 'tool_error' } : {};
}

/** The run's span: who it is (top-level or a named sub-agent), then, at its end, its totals and why it ended. */
export function agentStartAttributes(run: { workflowId: string; agentName: string; model: string }): Attributes {
  return {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.provider.name': PROVIDER,
    'gen_ai.agent.name': run.agentName,
    'gen_ai.agent.id': run.workflowId,
    'gen_ai.conversation.id': run.workflowId,
    'gen_ai.request.model': run.model,
  };
}

export function agentEndAttributes(end: Pick<AgentStatusView, 'status' | 'guard' | 'steps' | 'toolCalls' | 'usage' | 'costUsd'>): Attributes {
  return {
    'durable_agent.status': end.status,
    'durable_agent.guard': end.guard ?? 'none',
    'durable_agent.steps': end.steps,
    'durable_agent.tool_calls': end.toolCalls,
    'gen_ai.usage.input_tokens': promptTokens(end.usage),
    'gen_ai.usage.output_tokens': end.usage.output_tokens,
    ...(end.costUsd !== null ? { 'durable_agent.cost_usd': end.costUsd } : {}),
  };
}

/** The opt-in content attributes of a chat span: the messages sent and the reply, as the conventions' JSON. */
export function chatContentAttributes(system: string | undefined, messages: unknown[], reply: unknown[]): Attributes {
  return {
    ...(system ? { 'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: system }]) } : {}),
    'gen_ai.input.messages': JSON.stringify(messages),
    'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: reply }]),
  };
}

export function toolContentAttributes(input: unknown, outcome: ToolOutcome): Attributes {
  return {
    'gen_ai.tool.call.arguments': JSON.stringify(input),
    'gen_ai.tool.call.result': typeof outcome.content === 'string' ? outcome.content : JSON.stringify(outcome.content),
  };
}
