// Pure helpers over the transcript (the list of Messages API messages a run has exchanged).
import type {
  ContentBlock,
  MessageParam,
  ToolOutcome,
  ToolResultBlockParam,
  ToolUseBlock,
  TranscriptPage,
  Usage,
} from './types.js';

export const ZERO_USAGE: Usage = Object.freeze({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
});

/** Two usages summed field by field (server tool requests only once either has them, so runs without server
 * tools keep the four-field shape). */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_creation_input_tokens: a.cache_creation_input_tokens + b.cache_creation_input_tokens,
    cache_read_input_tokens: a.cache_read_input_tokens + b.cache_read_input_tokens,
  };
  if (a.server_tool_use || b.server_tool_use) {
    sum.server_tool_use = {
      web_search_requests: (a.server_tool_use?.web_search_requests ?? 0) + (b.server_tool_use?.web_search_requests ?? 0),
      web_fetch_requests: (a.server_tool_use?.web_fetch_requests ?? 0) + (b.server_tool_use?.web_fetch_requests ?? 0),
    };
  }
  return sum;
}

export function totalTokens(u: Usage): number {
  return promptTokens(u) + u.output_tokens;
}

/** The size of a call's prompt: its input tokens, cached or not (0 without a call). */
export function promptTokens(u: Usage | null | undefined): number {
  return u ? u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens : 0;
}

export function toolUseBlocks(content: readonly ContentBlock[]): ToolUseBlock[] {
  return content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
}

/** The text blocks of an assistant turn, joined. */
export function textOf(content: MessageParam['content']): string {
  if (typeof content === 'string') return content;
  return content
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('\n')
    .trim();
}

/** The text of the most recent assistant message that has any: the partial answer of a run that stopped. */
export function lastAssistantText(messages: readonly MessageParam[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'assistant') continue;
    const text = textOf(m.content);
    if (text) return text;
  }
  return '';
}

/** `lastAssistantText` of a transcript that only grows, kept as it grows: each call reads only the messages added
 * since the one before, so a run that asks after every step costs linear time, not quadratic. A transcript that
 * is not the one it has read, or is shorter, is read again from the start. */
export class LastAssistantText {
  #messages: readonly MessageParam[] | null = null;
  #read = 0;
  #text = '';

  of(messages: readonly MessageParam[]): string {
    if (messages !== this.#messages || messages.length < this.#read) {
      this.#messages = messages;
      this.#read = 0;
      this.#text = '';
    }
    for (; this.#read < messages.length; this.#read++) {
      const m = messages[this.#read];
      if (m.role !== 'assistant') continue;
      const text = textOf(m.content);
      if (text) this.#text = text;
    }
    return this.#text;
  }
}

/** ONE user message holding every result of a turn, in the order of the tool_use blocks (the API requires
 * the results right after the assistant turn, first in the content). */
export function toolResultMessage(calls: readonly ToolUseBlock[], outcomes: readonly ToolOutcome[]): MessageParam {
  if (calls.length !== outcomes.length) {
    throw new Error(`toolResultMessage: ${calls.length} tool_use blocks but ${outcomes.length} outcomes`);
  }
  const content: ToolResultBlockParam[] = calls.map((call, i) => ({
    type: 'tool_result',
    tool_use_id: call.id,
    content: outcomes[i].content,
    ...(outcomes[i].isError ? { is_error: true } : {}),
  }));
  return { role: 'user', content };
}

/** A slice of the transcript that stays well under gRPC's 4 MB message limit: messages from `from` until
 * about `maxBytes` of JSON (always at least one message, so a big message cannot stall the reader). */
export function transcriptPage(
  messages: readonly MessageParam[],
  from: number,
  to: number,
  maxBytes: number,
): TranscriptPage {
  const end = Math.min(to, messages.length);
  const page: MessageParam[] = [];
  let bytes = 0;
  for (let i = from; i < end; i++) {
    const size = JSON.stringify(messages[i]).length;
    if (page.length > 0 && bytes + size > maxBytes) break;
    page.push(messages[i]);
    bytes += size;
  }
  return { messages: page, from, total: messages.length };
}

/** Shortens text to one line of at most `max` characters, for summaries and logs. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(0, max - 1))}…`;
}
