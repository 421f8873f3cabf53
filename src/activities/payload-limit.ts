// Temporal rejects payloads over 2 MB, and a worker fails an oversized completion as RETRYABLE, so with the
// default retry policy the same oversized result would be produced forever. Activities check their own
// results and fail non-retryably, with a message that says what to change.
import { ApplicationFailure } from '@temporalio/common';

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
  const cut = text.length - max;
  return `${text.slice(0, max)}\n\n[output truncated: ${cut.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters were cut; ask for a narrower result]`;
}
