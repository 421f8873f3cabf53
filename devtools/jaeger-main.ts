// `npm run jaeger`: a local Jaeger (in-memory storage) in the foreground on free ports until Ctrl-C; it prints the
// OTEL_EXPORTER_OTLP_ENDPOINT to give the worker and the CLI. `--build` only builds it (once per machine, for CI's
// set-up step); `--ui DIR` serves a built jaeger-ui from DIR (the Go module carries only a placeholder page).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureJaeger, startJaeger } from './jaeger.js';

const log = (m: string) => console.error(`[jaeger] ${m}`);
let values: { build?: boolean; ui?: string } = {};
try {
  values = parseArgs({ options: { build: { type: 'boolean' }, ui: { type: 'string' } } }).values;
} catch (err) {
  log(`${(err as Error).message}; usage: npm run jaeger [-- --build | --ui DIR]`);
  process.exit(2);
}
if (values.ui !== undefined && !existsSync(path.join(values.ui, 'index.html'))) {
  log(`--ui ${values.ui}: no index.html there; give the folder of a built jaeger-ui (its packages/jaeger-ui/build)`);
  process.exit(2);
}
try {
  const binary = await ensureJaeger(log);
  if (values.build) log(`ready: ${binary}`);
  else {
    const jaeger = await startJaeger({ log, binary, uiAssets: values.ui && path.resolve(values.ui) });
    process.stdout.write(`OTEL_EXPORTER_OTLP_ENDPOINT=${jaeger.otlpEndpoint}\n`);
    log(`ready: export OTEL_EXPORTER_OTLP_ENDPOINT=${jaeger.otlpEndpoint}; traces at ${jaeger.queryUrl}; Ctrl-C stops it (its traces are in memory only)`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await jaeger.stop();
  }
} catch (err) {
  log(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
}
