// Builds the workflow bundles once, at build time, so a worker never runs webpack on start: one with Temporal's
// failure converter (failure messages in clear), one with the project's for workers that encrypt payloads
// (src/worker/workflow-code.ts chooses by the worker's data converter). A warm `npm run build`
// skips webpack when nothing the bundle is made from changed: the key is a hash of every compiled file in dist/,
// the lockfile and this script, kept beside the bundle (deleting dist/ deletes both).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = path.join(root, 'dist');
const out = path.join(dist, 'workflow-bundle.js');
const encodingOut = path.join(dist, 'workflow-bundle-encoding-failures.js');
const keyFile = path.join(dist, 'workflow-bundle.key');

const key = bundleKey();
if (existsSync(out) && existsSync(encodingOut) && existsSync(keyFile) && readFileSync(keyFile, 'utf8') === key) {
  console.error(`workflow bundle: ${out} (up to date)`);
  process.exit(0);
}

const workflowsPath = path.join(dist, 'workflows', 'index.js');
// The sandbox converts the workflow's own failures: for encrypting workers, with the project's failure converter,
// which moves their messages into payloads that the codec encrypts.
const failureConverterPath = path.join(dist, 'codec', 'failure-converter.cjs');
// OpenTelemetry's workflow interceptors (docs/observability.md): they trace a run's workflow side.
const { OTEL_WORKFLOW_INTERCEPTORS } = await import('../dist/observability/workflow-interceptors.js');
for (const [file, options] of [
  [out, {}],
  [encodingOut, { failureConverterPath }],
]) {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    ...options,
    workflowInterceptorModules: [OTEL_WORKFLOW_INTERCEPTORS],
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  });
  await writeFile(file, code);
  console.error(`workflow bundle: ${file} (${Math.round(code.length / 1024)} KiB)`);
}
await writeFile(keyFile, key);

/** What the bundle is made of: the compiled code (any of it may be imported by the workflows), the exact
 * dependency versions, and how it is bundled. */
function bundleKey() {
  const hash = createHash('sha256');
  const files = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const file = path.join(dir, e.name);
      if (e.isDirectory()) return files(file);
      return /\.(c|m)?js$/.test(e.name) && file !== out && file !== encodingOut ? [file] : [];
    });
  for (const file of files(dist).sort()) hash.update(path.relative(dist, file)).update('\0').update(readFileSync(file)).update('\0');
  hash.update(readFileSync(path.join(root, 'package-lock.json')));
  hash.update(readFileSync(fileURLToPath(import.meta.url)));
  return hash.digest('hex');
}
