// The Temporal runtime of a CLI process: every log line, the SDK's and the native core's alike, goes to
// stderr through one logger, so stdout carries only the command's output (`--json` stays parseable).
import { DefaultLogger, makeTelemetryFilterString, Runtime, type LogLevel } from '@temporalio/worker';

let installed = false;

export function installCliRuntime(level: LogLevel): void {
  if (installed) return;
  installed = true;
  Runtime.install({
    logger: new DefaultLogger(level, (entry) => {
      const meta = entry.meta && Object.keys(entry.meta).length > 0 ? ` ${JSON.stringify(entry.meta)}` : '';
      process.stderr.write(`${new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString()} [${entry.level}] ${entry.message}${meta}\n`);
    }),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: level, other: 'ERROR' }), forward: {} },
    },
  });
}
