// Where a worker (or the replay that reads a run without one) gets the workflow code: the bundles `npm run build`
// wrote, else one built once per process from source. Two bundles, which differ only in how the workflow sandbox
// converts its own failures: with Temporal's default converter (messages in clear), or, for workers that encrypt
// payloads, with the project's (FAILURE_CONVERTER_PATH: messages and stacks moved into the encrypted payload). The
// sandbox's converter must match the worker's data converter, so the bundle is chosen by it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode, type WorkflowBundleOption } from '@temporalio/worker';
import { OTEL_WORKFLOW_INTERCEPTORS } from '../observability/workflow-interceptors.js';

/** The bundles `npm run build` writes next to the compiled modules: Temporal's failure converter, and the
 * project's (for encrypting workers). */
export const PREBUILT_BUNDLE = fileURLToPath(new URL('../workflow-bundle.js', import.meta.url));
export const PREBUILT_ENCODING_BUNDLE = fileURLToPath(new URL('../workflow-bundle-encoding-failures.js', import.meta.url));

/** The agent workflow's entry module: compiled (dist) or source (running from src, in tests). */
export const AGENT_WORKFLOWS_PATH = ['../workflows/index.js', '../workflows/index.ts']
  .map((p) => fileURLToPath(new URL(p, import.meta.url)))
  .find((p) => existsSync(p))!;

/** Which bundle a worker with this data converter needs: by the failure converter it names (none: Temporal's). */
type Flavour = 'plain' | 'encoding';
const flavourOf = (dataConverter: DataConverter | undefined): Flavour => (dataConverter?.failureConverterPath ? 'encoding' : 'plain');

const bundledOnce: Partial<Record<Flavour, Promise<{ code: string }>>> = {};
const defaultBundlePaths: Partial<Record<Flavour, string>> = {};

/** Use these bundles wherever none is given (tests build them once for the whole suite, so that a process running
 * from source does not run webpack again). */
export function setDefaultWorkflowBundles(paths: { plain?: string; encoding?: string }): void {
  defaultBundlePaths.plain = paths.plain || undefined;
  defaultBundlePaths.encoding = paths.encoding || undefined;
}

/** The workflow code for a worker (or replay) with `dataConverter`: `path` when given, else the prebuilt bundle
 * of its kind, else one bundled from source once per process. */
export async function workflowBundle(path: string | undefined, dataConverter: DataConverter | undefined): Promise<WorkflowBundleOption> {
  const flavour = flavourOf(dataConverter);
  const given = path ?? defaultBundlePaths[flavour];
  if (given) return { codePath: given };
  const prebuilt = prebuiltBundle(dataConverter);
  if (prebuilt) return { codePath: prebuilt };
  // Running from source (tsx, tests): bundle once per process rather than on every Worker.create.
  bundledOnce[flavour] ??= bundleWorkflowCode({
    workflowsPath: AGENT_WORKFLOWS_PATH,
    ...(flavour === 'encoding' ? { failureConverterPath: dataConverter!.failureConverterPath } : {}),
    workflowInterceptorModules: [OTEL_WORKFLOW_INTERCEPTORS],
    logger: quietBundlerLogger,
  }).then(({ code }) => ({ code }));
  return bundledOnce[flavour];
}

/** The prebuilt bundle for a worker with `dataConverter`, when there is one (AgentPlugin on a worker without
 * workflows of its own). */
export function prebuiltBundle(dataConverter: DataConverter | undefined): string | undefined {
  const prebuilt = flavourOf(dataConverter) === 'plain' ? PREBUILT_BUNDLE : PREBUILT_ENCODING_BUNDLE;
  return existsSync(prebuilt) ? prebuilt : undefined;
}

const say = (message: string) => void process.stderr.write(`workflow bundler: ${message}\n`);
const quietBundlerLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn: say,
  error: say,
};
