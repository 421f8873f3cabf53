// The Temporal runtime of a CLI process: every log line, the SDK's and the native core's alike, goes to
// stderr through one logger, so stdout carries only the command's output (`--json` stays parseable).
import { DefaultLogger, makeTelemetryFilterString, Runtime, type LogLevel } from '@temporalio/worker';
import { redactPayloadBytes } from '../codec/redact-logs.js';

let installed = false;

export function installCliRuntime(level: LogLevel): void {
  if (installed) return;
  installed = true;
  Runtime.install({
    logger: new DefaultLogger(level, (entry) => {
      const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
      // The core logs undelivered results with their payload bytes (during an outage): never print those.
      process.stderr.write(`${time} [${entry.level}] ${redactPayloadBytes(describe(entry.message, entry.meta))}\n`);
    }),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: level, other: 'ERROR' }), forward: {} },
    },
  });
}

/** A failed attempt reads as what failed and why (the SDK's own line leads with a task token); other entries
 * keep their metadata, minus the token. */
function describe(message: string, meta: Record<string, unknown> | undefined): string {
  const { taskToken: _token, ...rest } = meta ?? {};
  if (message === 'Activity failed' && rest.activityType) {
    const error = rest.error as { message?: string } | undefined;
    return `${String(rest.activityType)} attempt ${String(rest.attempt)} failed (${rest.workflowId ?? ''}): ${error?.message ?? 'unknown error'}; Temporal retries it per the retry policy`;
  }
  return Object.keys(rest).length > 0 ? `${message} ${JSON.stringify(rest)}` : message;
}
