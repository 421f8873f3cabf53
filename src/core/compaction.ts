// Server-side compaction (the Messages API's `compact-2026-01-12` beta): when a request's prompt reaches the
// trigger, the API summarizes the conversation into a `compaction` block at the start of its reply, and
// continues from the summary. The block is part of the assistant's content and is kept whole in the transcript
// like every other block; later requests send the conversation from the last compaction block on, so a request
// stays bounded however long the job runs. Nothing is removed from the transcript. Pure.
import type { AgentSettings, ClientSummary, CompactionRecord, ContentBlock, MessageParam, ModelReply, RunState } from './types.js';
import { compactAtOf } from './model-settings.js';
import { DEFAULTS } from './policies.js';
import { promptTokens } from './transcript.js';

/** The beta a compacting request is sent with. */
export const COMPACTION_BETA = 'compact-2026-01-12';

/** A compaction block as the API returns it (BetaCompactionBlock); its `content` is null when the compaction
 * failed, and the server then treats the block as a no-op. */
export interface CompactionBlock {
  type: 'compaction';
  content: string | null;
  encrypted_content?: string | null;
}

function blocksOf(message: MessageParam): readonly { type: string }[] {
  return typeof message.content === 'string' ? [] : message.content;
}

/** The compaction block of an assistant message or reply content that holds a summary, if any. */
export function compactionBlockOf(content: readonly { type: string }[]): CompactionBlock | undefined {
  const block = content.find((b) => b.type === 'compaction') as CompactionBlock | undefined;
  return block && block.content !== null ? block : undefined;
}

/** The index of the last message that holds a (successful) compaction block, or -1. */
export function lastCompactionIndex(messages: readonly MessageParam[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'assistant' && compactionBlockOf(blocksOf(messages[i]))) return i;
  }
  return -1;
}

/** The user message a request sent from a compaction block opens with: a conversation must begin with the
 * user's turn, and the API ignores what comes before a compaction block anyway. Request-side only: the
 * transcript never holds it. */
export const COMPACTED_OPENING = 'The conversation before this point is summarized in the compaction block that follows.';

/** What a request sends: the conversation from the last compaction block on (the summary stands for
 * everything before it), or the whole conversation. */
export function fromLastCompaction(messages: MessageParam[]): MessageParam[] {
  const at = lastCompactionIndex(messages);
  if (at <= 0) return messages;
  const message = messages[at];
  const blocks = blocksOf(message);
  // Blocks before the compaction block in its message are summarized too.
  const start = blocks.findIndex((b) => b.type === 'compaction' && (b as CompactionBlock).content !== null);
  const kept = start > 0 ? ({ ...message, content: blocks.slice(start) } as MessageParam) : message;
  return [{ role: 'user', content: COMPACTED_OPENING }, kept, ...messages.slice(at + 1)];
}

/** Records the compaction of a reply just appended at `messageIndex`, when it made one. */
export function recordCompaction(state: RunState, reply: ModelReply, messageIndex: number): CompactionRecord | null {
  if (!compactionBlockOf(reply.content as readonly ContentBlock[])) return null;
  const u = reply.compactionUsage;
  const record: CompactionRecord = {
    messageIndex,
    tokensBefore: promptTokens(u),
    summaryTokens: u?.output_tokens ?? 0,
  };
  (state.compactions ??= []).push(record);
  return record;
}

/** The line `transcript` shows for a compaction. */
export function compactionLine(record: CompactionRecord | undefined, block: CompactionBlock): string {
  const n = (x: number) => x.toLocaleString('en-US');
  if (!record || record.tokensBefore === 0) {
    return `— compacted the conversation so far into a ${n(Math.ceil((block.content ?? '').length / 4))}-token summary —`;
  }
  return `— compacted ${n(record.tokensBefore)} tokens into a ${n(record.summaryTokens)}-token summary${record.clientSide ? ' (client-side)' : ''} —`;
}

/** Where older tool results start being cleared from requests: the setting, else (compaction on) never, since
 * compaction keeps what clearing would throw away, else the default. */
export function contextClearThreshold(settings: AgentSettings): number {
  if (settings.contextClearAtTokens !== undefined) return settings.contextClearAtTokens;
  return compactAtOf(settings) !== undefined ? Number.POSITIVE_INFINITY : DEFAULTS.contextClearAtTokens;
}

// Client-side compaction, where the endpoint refuses the compaction parameter: one summary call (tools
// disabled) writes a summary of the conversation so far; the run records it and the index of the first message
// it does not replace; later requests send it, as a user message, in place of the messages before. The
// transcript keeps every message.

/** What the summary call asks (appended, request-side only, as the last user text). */
export const COMPACTION_INSTRUCTION =
  'The conversation is about to outgrow the context window. Write a summary of it that lets you carry on the task ' +
  'without it: the task, what has been done and found (keep exact figures, names and identifiers), what remains, and ' +
  'anything you promised. Reply with the summary only. You cannot use tools now.';

/** How a request that begins with a client-side summary opens. */
export const CLIENT_SUMMARY_PREFIX = 'Summary of the conversation so far (the earlier messages were compacted):';

/** The messages a request sends with a client-side summary: the summary, then what came after it. */
export function withClientSummary(messages: MessageParam[], summary: ClientSummary): MessageParam[] {
  return [{ role: 'user', content: `${CLIENT_SUMMARY_PREFIX}\n\n${summary.summary}` }, ...messages.slice(summary.messageIndex)];
}

/** The messages with `text` as the last user text: added to the last message when it is the user's. */
export function withInstruction(messages: MessageParam[], text: string): MessageParam[] {
  const last = messages.at(-1);
  if (!last || last.role !== 'user') return [...messages, { role: 'user', content: text }];
  const blocks = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content;
  return [...messages.slice(0, -1), { role: 'user', content: [...blocks, { type: 'text', text }] }];
}

/** Whether the run should compact by itself before its next model call: the endpoint refused server-side
 * compaction, the last prompt reached the trigger, and something new is there to summarize (the conversation
 * ends with the user's turn: a summary never splits a tool call from its result). */
export function clientCompactionDue(state: RunState, settings: AgentSettings): boolean {
  const compactAt = compactAtOf(settings);
  if (compactAt === undefined || !state.refused?.includes('compaction')) return false;
  if (promptTokens(state.loop.lastCallUsage) < compactAt) return false;
  const from = state.clientSummary?.messageIndex ?? 0;
  return state.messages.length > from + 1 && state.messages.at(-1)?.role === 'user';
}

/** Records a client-side compaction: its summary, and what it did. */
export function recordClientCompaction(state: RunState, summary: string, reply: ModelReply): CompactionRecord {
  const messageIndex = state.messages.length;
  state.clientSummary = { summary, messageIndex };
  const record: CompactionRecord = { messageIndex, tokensBefore: promptTokens(reply.usage), summaryTokens: reply.usage.output_tokens, clientSide: true };
  (state.compactions ??= []).push(record);
  return record;
}
