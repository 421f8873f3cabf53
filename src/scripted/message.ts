// The Message the scripted model returns for a reply turn, as the real API would: block ids filled in
// deterministically (a retried call gets the same message), server tool blocks completed, usage estimated from the
// prompt cache unless the script gives it, and a compaction block first when the request asked for one.
import { createHash } from 'node:crypto';
import type { MessagesRequestBody, ReplyTurn, ScriptUsage } from './script.js';
import { compactionFor, compactionIterations } from './compaction.js';
import type { PromptCache } from './prompt-cache.js';

/** The reply's blocks as the API returns them: ids filled in (deterministic, so a retry sees the same), server
 * tool blocks with their `caller`, and each server tool result tied to the server_tool_use before it. */
function replyContent(reply: ReplyTurn, turn: number): Array<Record<string, unknown>> {
  let lastServerToolUseId: string | undefined;
  return reply.content.map((block, index) => {
    switch (block.type) {
      case 'tool_use':
        return { type: 'tool_use', id: block.id ?? `toolu_${turn}_${index}`, name: block.name, input: block.input };
      case 'server_tool_use':
        lastServerToolUseId = block.id ?? `srvtoolu_${turn}_${index}`;
        return { type: 'server_tool_use', id: lastServerToolUseId, name: block.name, input: block.input, caller: { type: 'direct' } };
      case 'text':
      case 'thinking':
      case 'redacted_thinking':
        return { ...block };
      default:
        return { type: block.type, tool_use_id: block.tool_use_id ?? lastServerToolUseId, content: block.content, caller: { type: 'direct' } };
    }
  });
}

/** `usage.server_tool_use`: the script's figures, else the reply's server_tool_use blocks counted by name. */
function serverToolUsage(content: Array<Record<string, unknown>>, u: ScriptUsage): Record<string, number> | null {
  const count = (name: string) => content.filter((b) => b.type === 'server_tool_use' && b.name === name).length;
  const hasServerTools = content.some((b) => b.type === 'server_tool_use');
  if (!u.server_tool_use && !hasServerTools) return null;
  return {
    web_search_requests: u.server_tool_use?.web_search_requests ?? count('web_search'),
    web_fetch_requests: u.server_tool_use?.web_fetch_requests ?? count('web_fetch'),
  };
}

/** The JSON Message for a reply turn: deterministic ids, estimated usage unless the script gives it. */
export function buildMessage(body: MessagesRequestBody, turn: number, reply: ReplyTurn, cache: PromptCache): Record<string, unknown> {
  const compacted = compactionFor(body, turn);
  const content = compacted ? [compacted.block, ...replyContent(reply, turn)] : replyContent(reply, turn);
  // Same request + same reply → same id, so a retried call returns an identical message.
  const digest = createHash('sha256')
    .update(JSON.stringify([body.model, body.system ?? null, body.tools ?? null, body.messages, turn, content]))
    .digest('hex');
  const u = reply.usage ?? {};
  // After a compaction the reply is sampled from the summary: no cache, a small prompt.
  const estimated = compacted
    ? { input_tokens: compacted.promptAfter, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
    : cache.account(body);
  const outputTokens = u.output_tokens ?? Math.max(1, Math.ceil(JSON.stringify(content).length / 4));
  return {
    id: `msg_${digest.slice(0, 24)}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: reply.stop_reason,
    stop_sequence: reply.stop_sequence ?? null,
    stop_details: null,
    container: null,
    usage: {
      input_tokens: u.input_tokens ?? estimated.input_tokens,
      output_tokens: outputTokens,
      cache_creation_input_tokens: u.cache_creation_input_tokens ?? (u.input_tokens === undefined ? estimated.cache_creation_input_tokens : 0),
      cache_read_input_tokens: u.cache_read_input_tokens ?? (u.input_tokens === undefined ? estimated.cache_read_input_tokens : 0),
      server_tool_use: serverToolUsage(content, u),
      service_tier: 'standard',
      ...(compacted ? { iterations: compactionIterations(compacted, outputTokens) } : {}),
    },
  };
}
