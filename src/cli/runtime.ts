// The Temporal runtime of a CLI process: every log line, the SDK's and the native core's alike, goes to
// stderr through one logger, so stdout carries only the command's output (`--json` stays parseable).
import { DefaultLogger, makeTelemetryFilterString, Runtime, type LogLevel } from '@temporalio/worker';
import { AGENT_ACTIVITY_TYPES } from '../core/policies.js';
import { redactPayloadBytes } from '../codec/redact-logs.js';
import { terminalSafe } from './terminal-text.js';

let installed = false;
let lastOutageLine = 0;
const OUTAGE_LINE_EVERY_MS = 30_000;

/** A core log entry that only says a poll or a heartbeat could not reach the server. Failures to deliver a
 * result are not noise: they stay, each on its line (redacted). */
function isOutageNoise(message: string, meta: Record<string, unknown> | undefined): boolean {
  const text = `${message} ${meta ? JSON.stringify(meta) : ''}`;
  return (
    /gRPC call poll_\w+ retried|Error when recording heartbeat/.test(message) &&
    /code: Unavailable|Connection refused|tcp connect error|transport error/i.test(text)
  );
}

/** `prometheusBindAddress`: where Temporal's runtime serves its worker metrics (the `worker --metrics-port` server
 * reads them there). */
export function installCliRuntime(level: LogLevel, options: { prometheusBindAddress?: string } = {}): void {
  if (installed) return;
  installed = true;
  Runtime.install({
    logger: new DefaultLogger(level, (entry) => {
      const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
      if (isOutageNoise(entry.message, entry.meta)) {
        // During a server outage every poll, heartbeat and completion logs a raw gRPC status, several a second:
        // one plain line per half minute says the same.
        if (Date.now() - lastOutageLine < OUTAGE_LINE_EVERY_MS) return;
        lastOutageLine = Date.now();
        process.stderr.write(`${time} [${entry.level}] the worker cannot reach the Temporal server; it keeps polling and retrying\n`);
        return;
      }
      // The model-call worker polls activities only, by design: the SDK's warning about it is noise at every start.
      if (entry.message.startsWith('No workflows registered') && String(entry.meta?.taskQueue ?? '').endsWith('-model')) return;
      // The agent's activities tell their failed attempts themselves (src/activities/attempt-log.ts), saying whether
      // another attempt follows: the SDK's line cannot know.
      if (entry.message === 'Activity failed' && AGENT_ACTIVITY_TYPES.includes(entry.meta?.activityType as never)) return;
      // A task this worker cannot decrypt: the codec said so once (src/worker/plugin.ts, workerDataConverter); the SDK's
      // stack trace at every retry of the task adds nothing.
      if (entry.message === 'Failed to process Workflow Activation' && (entry.meta?.error as Error | undefined)?.name === 'EncryptionKeyError') return;
      // The core logs undelivered results with their payload bytes (during an outage): never print those.
      process.stderr.write(`${time} [${entry.level}] ${terminalSafe(redactPayloadBytes(describe(entry.message, entry.meta)))}\n`);
    }),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: level, other: 'ERROR' }), forward: {} },
      ...(options.prometheusBindAddress ? { metrics: { prometheus: { bindAddress: options.prometheusBindAddress, useSecondsForDurations: true } } } : {}),
    },
  });
}

/** A failed attempt reads as what failed and why (the SDK's own line leads with a task token); other entries
 * keep their metadata, minus the token. */
function describe(message: string, meta: Record<string, unknown> | undefined): string {
  const { taskToken: _token, ...rest } = meta ?? {};
  if (message === 'Activity failed' && rest.activityType) {
    const error = rest.error as { message?: string } | undefined;
    return `${String(rest.activityType)} attempt ${String(rest.attempt)} failed (${rest.workflowId ?? ''}): ${error?.message ?? 'unknown error'}`;
  }
  return Object.keys(rest).length > 0 ? `${message} ${JSON.stringify(rest)}` : message;
}
