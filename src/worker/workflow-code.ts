// Where a worker (or the replay that reads a run without one) gets the workflow code: the bundle `npm run build`
// wrote, else one built once per process from source.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';
import { FAILURE_CONVERTER_PATH } from '../codec/data-converter.js';
import { OTEL_WORKFLOW_INTERCEPTORS } from '../observability/workflow-interceptors.js';

/** The bundle `npm run build` writes next to the compiled modules. */
export const PREBUILT_BUNDLE = fileURLToPath(new URL('../workflow-bundle.js', import.meta.url));

/** The agent workflow's entry module: compiled (dist) or source (running from src, in tests). */
export const AGENT_WORKFLOWS_PATH = ['../workflows/index.js', '../workflows/index.ts']
  .map((p) => fileURLToPath(new URL(p, import.meta.url)))
  .find((p) => existsSync(p))!;

let bundledOnce: Promise<{ code: string }> | undefined;
let defaultBundlePath: string | undefined;

/** Use this bundle wherever none is given (tests build one for the whole suite, so that a process running from
 * source does not run webpack again). */
export function setDefaultWorkflowBundle(path: string | undefined): void {
  defaultBundlePath = path || undefined;
}

export async function workflowBundle(path?: string): Promise<WorkflowBundleOption> {
  if (path ?? defaultBundlePath) return { codePath: (path ?? defaultBundlePath)! };
  if (existsSync(PREBUILT_BUNDLE)) return { codePath: PREBUILT_BUNDLE };
  // Running from source (tsx, tests): bundle once per process rather than on every Worker.create.
  bundledOnce ??= bundleWorkflowCode({
    workflowsPath: AGENT_WORKFLOWS_PATH,
    failureConverterPath: FAILURE_CONVERTER_PATH,
    workflowInterceptorModules: [OTEL_WORKFLOW_INTERCEPTORS],
    logger: quietBundlerLogger,
  }).then(({ code }) => ({ code }));
  return bundledOnce;
}

const quietBundlerLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn(message: string) {
    process.stderr.write(`workflow bundler: ${message}\n`);
  },
  error(message: string) {
    process.stderr.write(`workflow bundler: ${message}\n`);
  },
};
