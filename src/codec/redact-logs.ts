// Log lines never carry payload bytes. Temporal's core logs the activity result it failed to deliver during a
// server outage as `ActivityExecutionResult(Success([<base64>..<base64>]))`: the first and last bytes of each
// payload, which without encryption are the task's or the tool's own text. This removes such dumps, and any
// other long base64 run, from a log line before it is written.

/** The core's abbreviated payload dump: `[<base64>..<base64>]`, one per payload, comma-separated. */
const PAYLOAD_DUMP = /\[(?:[A-Za-z0-9+/]*={0,2}\.\.[A-Za-z0-9+/]*={0,2}(?:,\s*)?)+\]/g;
/** A base64 run long enough to hold data (24+ characters); only redacted when it mixes digits and letters of
 * both cases, as encoded bytes do and words, paths and identifiers rarely do. */
const BASE64_RUN = /(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=])/g;

export function redactPayloadBytes(line: string): string {
  return line
    .replace(PAYLOAD_DUMP, '[<payload bytes redacted>]')
    .replace(BASE64_RUN, (run) => (/\d/.test(run) && /[a-z]/.test(run) && /[A-Z]/.test(run) ? '<bytes redacted>' : run));
}
