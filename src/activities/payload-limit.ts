// Temporal rejects payloads over 2 MB, and a worker fails an oversized completion as RETRYABLE, so with the
// default retry policy the same oversized result would be produced forever. Activities check their own
// results and fail non-retryably, with a message that says what to change.
import { ApplicationFailure } from '@temporalio/common';
import type { ToolOutcome } from '../core/types.js';

/** Below the server's 2 MiB blob limit, leaving room for the payload envelope. */
export const MAX_RESULT_BYTES = 1_800_000;

export function assertFitsInHistory(value: unknown, what: string): void {
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  if (bytes <= MAX_RESULT_BYTES) return;
  throw ApplicationFailure.create({
    type: 'PayloadTooLarge',
    nonRetryable: true,
    message:
      `the ${what} is ${bytes} bytes, over the ${MAX_RESULT_BYTES}-byte limit of one Temporal payload; ` +
      'lower --max-output-tokens, or the tool output limit (maxToolOutputChars)',
  });
}

/** Cuts text to `max` characters, telling the model how much was cut so it can ask for less. */
export function truncateForModel(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}${cutNote(text.length - max, text.length)}`;
}

/** A tool's output cut to `max` characters of text: a string as `truncateForModel` does, content blocks by
 * cutting their text (images and documents pass whole: the payload limit bounds them). */
export function limitToolOutput(content: ToolOutcome['content'], max: number): ToolOutcome['content'] {
  if (typeof content === 'string') return truncateForModel(content, max);
  const total = content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
  if (total <= max) return content;
  let left = max;
  const limited: typeof content = [];
  for (const block of content) {
    if (block.type !== 'text') {
      limited.push(block);
    } else if (left > 0) {
      const text = block.text.slice(0, left);
      left -= text.length;
      limited.push({ ...block, text: left === 0 ? `${text}${cutNote(total - max, total)}` : text });
    }
  }
  return limited;
}

function cutNote(cut: number, total: number): string {
  return `\n\n[output truncated: ${cut.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} characters were cut; ask for a narrower result]`;
}
