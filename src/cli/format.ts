// Text helpers shared by the readable outputs of `status`, `transcript`, `watch` and `list`.
import { oneLine, totalTokens } from '../core/transcript.js';
import type { ToolCallInFlight } from '../client/tool-progress.js';
import type { ModelCallInFlight } from '../client/model-progress.js';
import { formatDuration } from '../core/duration.js';
import type { ContentBlockParam, MessageParam, ToolCallView, Usage } from '../core/types.js';

export function blocksOf(content: MessageParam['content']): ContentBlockParam[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

export function toolResultText(content: Extract<ContentBlockParam, { type: 'tool_result' }>['content']): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function tokensText(u: Usage): string {
  const f = (n: number) => n.toLocaleString('en-US');
  return (
    `${f(totalTokens(u))} (input ${f(u.input_tokens)} · output ${f(u.output_tokens)} · ` +
    `cache write ${f(u.cache_creation_input_tokens)} · cache read ${f(u.cache_read_input_tokens)})`
  );
}

export function callText(call: ToolCallView): string {
  return `${call.name} ${oneLine(JSON.stringify(call.input) ?? 'null', 200)} (${call.toolUseId})`;
}

/** `2025-06-01 14:03:07Z`: UTC, to the second. */
export function timeText(date: Date): string {
  return `${new Date(date).toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** Rows under a header, each column as wide as its widest cell, two spaces apart; `right`: the columns aligned right. */
export function table(header: string[], rows: string[][], right: number[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (right.includes(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}

export function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

/** A model call in flight, in one line: `attempt 2 · text · ~312 output tokens · 1m4s`, and what it has said so
 * far (the last words its heartbeat carried), when there is something to show. */
export function modelCallText(call: ModelCallInFlight): { line: string; words?: string } {
  const parts = [`attempt ${call.attempt}`];
  const p = call.progress;
  if (call.state !== 'started') parts.push(call.state);
  if (p) {
    parts.push(p.producing, `~${p.outputTokens.toLocaleString('en-US')} output tokens`, formatDuration(p.elapsedMs));
  } else if (call.state === 'started') parts.push('waiting for the first words');
  if (call.attempt > 1 && call.lastFailure) parts.push(`retried after: ${oneLine(call.lastFailure, 120)}`);
  return { line: parts.join(' · '), words: p?.lastWords || undefined };
}

/** A tool call in flight as `status` and `watch` show it: `attempt 2 of 3 · running 4m 10s · timeout 2h ·
 * "linking (80%)"`, the previous attempt's end, or the outside completion it waits for. */
export function toolCallProgressText(call: ToolCallInFlight | undefined, view: ToolCallView | undefined, now: number): string {
  const parts: string[] = [];
  if (call) {
    parts.push(call.maximumAttempts > 0 ? `attempt ${call.attempt} of ${call.maximumAttempts}` : `attempt ${call.attempt}`);
    if (call.state !== 'started') parts.push(call.state);
    if (call.waitingForCompletionSince) {
      parts.push(`waiting for an outside completion (complete-tool) for ${formatDuration(now - call.waitingForCompletionSince.getTime())}`);
    } else if (call.startedAt) parts.push(`running ${formatDuration(now - call.startedAt.getTime())}`);
  }
  if (view?.timeoutMs !== undefined) parts.push(`timeout ${formatDuration(view.timeoutMs)}`);
  if (call?.progress) {
    const pct = call.progress.fraction !== undefined ? ` (${Math.round(call.progress.fraction * 100)}%)` : '';
    parts.push(`"${oneLine(call.progress.message, 160)}"${pct}`);
  }
  if (call?.mcpTaskId) parts.push(`MCP task ${call.mcpTaskId}`);
  if (call && call.attempt > 1 && call.lastFailure) parts.push(`previous attempt ended: ${oneLine(call.lastFailure, 120)}`);
  return parts.join(' · ');
}

/** Claude's server tool blocks in one line: the call (`web_search {"query":…}`), or what its result holds (the
 * pages a web search found, or its error code). Null for any other block. */
export function serverToolText(block: { type: string } & Record<string, unknown>): string | null {
  if (block.type === 'server_tool_use') return `${String(block.name)} ${oneLine(JSON.stringify(block.input) ?? '', 200)}`;
  if (!block.type.endsWith('_tool_result') || block.type === 'tool_result') return null;
  const content = block.content;
  if (Array.isArray(content)) {
    const pages = content.map((r: { title?: unknown; url?: unknown }) => `${String(r.title ?? '')} (${String(r.url ?? '')})`);
    return `${plural(content.length, 'result')}: ${oneLine(pages.join('; '), 200)}`;
  }
  const error = (content as { error_code?: unknown } | undefined)?.error_code;
  return error ? `error ${String(error)}` : oneLine(JSON.stringify(content) ?? '', 200);
}
