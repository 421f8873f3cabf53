// What `replay` compares, pure: a recorded run's steps (each model reply with the tool calls it asked for and the
// results the run sent back), a tool result against a new one, a reply's tool calls against a new reply's, and the
// short diff a report shows.
import { canonicalJson } from './canonical.js';
import { DENIED_RESULT_PREFIX, INTERRUPTED_RESULT_PREFIX, NOT_RUN_RESULT_PREFIX, TRIMMED_RESULT_PREFIX } from './run-state.js';
import type { ContentBlock, MessageParam, ToolResultBlockParam } from './types.js';

/** One recorded tool call: what the model asked for, and the result the run sent back. */
export interface RecordedCall {
  toolUseId: string;
  name: string;
  input: unknown;
  /** Absent when the run has not recorded it (a running run's last step). */
  result?: { content: ToolResultBlockParam['content']; isError: boolean };
}

/** One recorded step: the index of its reply in the transcript, and its tool calls. */
export interface RecordedStep {
  step: number;
  messageIndex: number;
  calls: RecordedCall[];
}

/** The steps of a transcript, in order (step k is its k-th model reply). */
export function recordedStepsOf(messages: readonly MessageParam[]): RecordedStep[] {
  const steps: RecordedStep[] = [];
  messages.forEach((m, i) => {
    if (m.role !== 'assistant') return;
    const blocks = Array.isArray(m.content) ? (m.content as ContentBlock[]) : [];
    const next = messages[i + 1];
    const results = new Map<string, ToolResultBlockParam>();
    if (next?.role === 'user' && Array.isArray(next.content)) {
      for (const b of next.content) if (b.type === 'tool_result') results.set(b.tool_use_id, b);
    }
    const calls = blocks.flatMap((b): RecordedCall[] => {
      if (b.type !== 'tool_use') return [];
      const r = results.get(b.id);
      return [{ toolUseId: b.id, name: b.name, input: b.input, ...(r ? { result: { content: r.content, isError: r.is_error === true } } : {}) }];
    });
    steps.push({ step: steps.length + 1, messageIndex: i, calls });
  });
  return steps;
}

/** Why a recorded result is not a tool's answer as the tool gave it (the run wrote it: a reviewer denied the call, a
 * stop left it unrun or cut it off; or continue-as-new trimmed it to a note), or null for a tool's own result. Such
 * a call is not made again: there is nothing recorded to compare its new result with. */
export function notAnsweredByTool(result: { content: unknown; isError: boolean }): string | null {
  const text = normalContent(result.content);
  if (typeof text !== 'string') return null;
  if (text.startsWith(TRIMMED_RESULT_PREFIX)) return 'trimmed at continue-as-new in the recorded run (not kept whole to compare)';
  if (!result.isError) return null;
  if (text.startsWith(DENIED_RESULT_PREFIX)) return 'denied by a reviewer in the recorded run (not run then)';
  if (text.startsWith(NOT_RUN_RESULT_PREFIX)) return 'not run in the recorded run (it stopped first)';
  if (text.startsWith(INTERRUPTED_RESULT_PREFIX)) return 'cut off in the recorded run (its result is not the tool’s)';
  return null;
}

/** A result's content in one comparable form: a string and a single text block are the same to the model. */
export function normalContent(content: unknown): unknown {
  if (content === undefined || content === null) return '';
  if (Array.isArray(content) && content.length === 1 && content[0]?.type === 'text') return content[0].text;
  return content;
}

/** Exact agreement: the same content (a string or the same blocks) and the same error flag. */
export function sameResult(a: { content: unknown; isError: boolean }, b: { content: unknown; isError: boolean }): boolean {
  return a.isError === b.isError && canonicalJson(normalContent(a.content)) === canonicalJson(normalContent(b.content));
}

/** A reply's tool calls as the comparison sees them: names and inputs, in order. */
export function toolCallsOf(content: readonly ContentBlock[]): Array<{ name: string; input: unknown }> {
  return content.flatMap((b) => (b.type === 'tool_use' ? [{ name: b.name, input: b.input }] : []));
}

export function sameToolCalls(a: ReadonlyArray<{ name: string; input: unknown }>, b: ReadonlyArray<{ name: string; input: unknown }>): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

const SHOWN = 120;

/** Recorded vs new in a line or two: where they first differ, with a little of each around it. */
export function shortDiff(recorded: unknown, current: unknown): string {
  const a = textOf(recorded);
  const b = textOf(current);
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  const from = Math.max(0, at - 20);
  const cut = (s: string) => `${from > 0 ? '…' : ''}${s.slice(from, from + SHOWN)}${s.length > from + SHOWN ? '…' : ''}`;
  return `recorded: ${cut(a)}\n     new: ${cut(b)}`;
}

function textOf(value: unknown): string {
  const v = normalContent(value);
  return typeof v === 'string' ? v : JSON.stringify(v);
}
