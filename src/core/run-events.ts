// The events of a run's live stream (`GET /v1/runs/{id}/events`), derived from what a subscriber can read
// without adding to the run's history: its transcript, its status view and the progress of the model call in
// flight. Pure, so the ids and their order are tested without a server.
//
// An event id is `L.p.n`: `L` a position in the transcript, `p` the phase, `n` a counter. Phase 0 holds what is
// seen live while the transcript has `L` messages (the words the model streams for message `L`, a pending
// approval, a sub-agent's child run started, a guard); phase 1 the events of message `L` itself (`step` and `tool_call` for an assistant message,
// `tool_result` for a user one), numbered by block, so they get the same ids whenever the transcript is read
// again (after a server restart); phase 2 the `end` of a run whose transcript has `L` messages.
import { TERMINAL_STATUSES, type AgentStatusView, type ContentBlockParam, type MessageParam } from './types.js';

export type RunEventType = 'step' | 'model_text' | 'tool_call' | 'tool_result' | 'approval_needed' | 'child_started' | 'guard' | 'end';

export const RUN_EVENT_TYPES: readonly RunEventType[] = ['step', 'model_text', 'tool_call', 'tool_result', 'approval_needed', 'child_started', 'guard', 'end'];

export interface RunEvent {
  id: string;
  event: RunEventType;
  data: Record<string, unknown>;
}

export type EventPosition = readonly [number, number, number];

export function eventId([l, p, n]: EventPosition): string {
  return `${l}.${p}.${n}`;
}

/** The position of an id (a `Last-Event-ID`), or undefined when it is not one of ours. */
export function parseEventId(id: string): EventPosition | undefined {
  const m = /^(\d{1,9})\.([0-2])\.(\d{1,9})$/.exec(id.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

export function compareEventIds(a: string, b: string): number {
  const pa = parseEventId(a);
  const pb = parseEventId(b);
  if (!pa || !pb) throw new Error(`not an event id: ${pa ? b : a}`);
  return pa[0] - pb[0] || pa[1] - pb[1] || pa[2] - pb[2];
}

/** The events of message `index` of a transcript: phase 1, one id per block, the same at every read. */
export function messageEvents(message: MessageParam, index: number): RunEvent[] {
  const blocks: ContentBlockParam[] = typeof message.content === 'string' ? [] : message.content;
  const at = (n: number) => eventId([index, 1, n]);
  if (message.role === 'assistant') {
    const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    const toolUses = blocks.filter((b) => b.type === 'tool_use');
    const events: RunEvent[] = [{ id: at(0), event: 'step', data: { message: index, text, toolCalls: toolUses.length } }];
    blocks.forEach((b, i) => {
      if (b.type === 'tool_use') events.push({ id: at(i + 1), event: 'tool_call', data: { toolUseId: b.id, name: b.name, input: b.input } });
    });
    return events;
  }
  const events: RunEvent[] = [];
  blocks.forEach((b, i) => {
    if (b.type !== 'tool_result') return;
    events.push({
      id: at(i + 1),
      event: 'tool_result',
      data: { toolUseId: b.tool_use_id, isError: b.is_error ?? false, content: resultText(b.content) },
    });
  });
  return events;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.flatMap((c: { type?: string; text?: string }) => (c.type === 'text' && typeof c.text === 'string' ? [c.text] : [])).join('');
}

/** What the model streamed since `previous`: the end of `current` past their overlap (both are the last words
 * of the same stream, a sliding window). All of `current` when they do not overlap (a retry, a gap). */
export function streamedDelta(before: string, now: string): string {
  // A window cut at its start begins with an ellipsis, which is not a word the model wrote.
  const previous = before.replace(/^…/, '');
  const current = now.replace(/^…/, '');
  if (current === previous) return '';
  if (current.startsWith(previous)) return current.slice(previous.length);
  for (let k = Math.min(previous.length, current.length); k > 0; k--) {
    if (previous.endsWith(current.slice(0, k))) return current.slice(k);
  }
  return current;
}

/** Whether a view says the run is over (its `end` event may be sent). */
export function isTerminal(view: Pick<AgentStatusView, 'status'>): boolean {
  return TERMINAL_STATUSES.includes(view.status);
}
