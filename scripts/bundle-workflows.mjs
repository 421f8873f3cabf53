// Builds the workflow bundle once, at build time, so a worker never runs webpack on start.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

const workflowsPath = fileURLToPath(new URL('../dist/workflows/index.js', import.meta.url));
// The sandbox converts the workflow's own failures: with the project's failure converter, their messages are
// payloads, which the codec encrypts.
const failureConverterPath = fileURLToPath(new URL('../dist/codec/failure-converter.cjs', import.meta.url));
// OpenTelemetry's workflow interceptors (docs/observability.md): they trace a run's workflow side.
const { OTEL_WORKFLOW_INTERCEPTORS } = await import('../dist/observability/workflow-interceptors.js');
const out = fileURLToPath(new URL('../dist/workflow-bundle.js', import.meta.url));
const { code } = await bundleWorkflowCode({
  workflowsPath,
  failureConverterPath,
  workflowInterceptorModules: [OTEL_WORKFLOW_INTERCEPTORS],
  logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
});
await writeFile(out, code);
console.error(`workflow bundle: ${out} (${Math.round(code.length / 1024)} KiB)`);
