// Server-sent events for `"stream": true`, in the real API's order and shapes, so the SDK's MessageStream
// rebuilds exactly the Message the non-streaming path returns (the tests compare the two).
import type { ServerResponse } from 'node:http';

export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Splits a string into small pieces, like the real API's deltas (deterministic: fixed size). Counts code
 * points, so no delta ends inside a surrogate pair (emoji stay valid in every event). */
function chunks(s: string, size: number): string[] {
  const points = Array.from(s);
  const out: string[] = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out;
}

type Block = Record<string, unknown> & { type: string };

function blockEvents(block: Block, index: number): SseEvent[] {
  const start = (content_block: Record<string, unknown>): SseEvent => ({
    event: 'content_block_start',
    data: { type: 'content_block_start', index, content_block },
  });
  const delta = (d: Record<string, unknown>): SseEvent => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: d },
  });
  const events: SseEvent[] = [];
  switch (block.type) {
    case 'text':
      events.push(start({ ...block, text: '' }));
      for (const piece of chunks(block.text as string, 24)) events.push(delta({ type: 'text_delta', text: piece }));
      break;
    case 'tool_use':
    case 'server_tool_use':
      // The input arrives as JSON text; the real API opens with an empty partial_json.
      events.push(start({ ...block, input: {} }));
      events.push(delta({ type: 'input_json_delta', partial_json: '' }));
      for (const piece of chunks(JSON.stringify(block.input ?? {}), 16)) {
        events.push(delta({ type: 'input_json_delta', partial_json: piece }));
      }
      break;
    case 'thinking':
      events.push(start({ ...block, thinking: '', signature: '' }));
      for (const piece of chunks(block.thinking as string, 24)) events.push(delta({ type: 'thinking_delta', thinking: piece }));
      events.push(delta({ type: 'signature_delta', signature: block.signature }));
      break;
    default:
      // redacted_thinking and the rest arrive whole in content_block_start.
      events.push(start(block));
  }
  events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  return events;
}

/** The events that stream `message` (a complete non-streaming Message). */
export function messageEvents(message: Record<string, unknown>): SseEvent[] {
  const usage = message.usage as Record<string, unknown>;
  const content = message.content as Block[];
  // message_start carries the message with no content, no stop reason, and the input side of usage;
  // message_delta then brings the stop reason and the final (cumulative) usage.
  const startMessage = { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } };
  const events: SseEvent[] = [{ event: 'message_start', data: { type: 'message_start', message: startMessage } }];
  content.forEach((block, index) => {
    const ev = blockEvents(block, index);
    events.push(...ev);
    if (index === 0) events.splice(events.length - ev.length + 1, 0, { event: 'ping', data: { type: 'ping' } });
  });
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: {
        stop_reason: message.stop_reason,
        stop_sequence: message.stop_sequence ?? null,
        stop_details: message.stop_details ?? null,
        container: message.container ?? null,
      },
      usage: {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        server_tool_use: usage.server_tool_use ?? null,
        ...(usage.iterations ? { iterations: usage.iterations } : {}),
      },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

export interface SseDelivery {
  /** Wait this long before each event. */
  eventDelayMs?: number;
  /** Destroy the connection after this many events instead of finishing the response. */
  cutAfterEvents?: number;
  /** Before sending event number `pauseAfterEvents`, wait for `resume()` (a paused stream). */
  pauseAfterEvents?: number;
  resume?: () => Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Writes the response headers and the events (slowly, or cut short, when asked), then ends the response; stops
 * when the client disconnects. */
export async function writeSse(
  res: ServerResponse,
  events: SseEvent[],
  headers: Record<string, string>,
  delivery: SseDelivery,
): Promise<void> {
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  // The real API answers with its headers at once, before the first event.
  res.flushHeaders();
  let gone = false;
  res.on('close', () => void (gone = !res.writableFinished));
  for (const [i, { event, data }] of events.entries()) {
    if (i === delivery.cutAfterEvents) {
      // Abruptly, as a dropped connection looks to the client: no final chunk, no message_stop.
      res.destroy();
      return;
    }
    if (i === delivery.pauseAfterEvents && delivery.resume) await delivery.resume();
    if (delivery.eventDelayMs) await sleep(delivery.eventDelayMs);
    if (gone) return;
    const chunk = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    // Before a cut, each event is flushed first, so exactly `cutAfterEvents` events reach the client.
    if (delivery.cutAfterEvents === undefined) res.write(chunk);
    else await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
  }
  res.end();
}
