// Vitest globalSetup: one dev server per test process (vitest's maxWorkers) and one workflow bundle for the whole
// run, because starting a server (~1 s) and running webpack (several s) per test file would dominate the suite's
// time. A server per process, not one for all: each server then sees one test file at a time, the load that never
// locked the dev server's in-memory SQLite up (docs/operations.md, "The embedded Temporal server").
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { findTemporalCli } from '../src/devserver/find-temporal.js';
import { startDevServer, type DevServer } from '../src/devserver/dev-server.js';
import { FAILURE_CONVERTER_PATH } from '../src/codec/data-converter.js';
import { OTEL_WORKFLOW_INTERCEPTORS } from '../src/observability/workflow-interceptors.js';
import { CLI_COUNT_FILE } from './helpers/cli-count.js';

interface Shared {
  servers: DevServer[];
  dbDir: string;
  tmpDir?: string;
  addresses: string[];
  metricsPorts: Array<number | null>;
  bundlePath: string;
  encodingBundlePath: string;
  /** Where the tests count the CLI processes they spawn (test/helpers/cli-count.ts). */
  countDir: string;
}

// Both integration projects (vitest.config.ts) name this file: they share one set of servers and one bundle, started
// by whichever asks first and stopped when the last one tears down. Kept on globalThis: vitest imports this file once
// per project, so a module variable would give each project servers and a bundle of its own.
const state = globalThis as typeof globalThis & { durableAgentTestSetup?: { shared?: Promise<Shared>; users: number } };
const setupState = (state.durableAgentTestSetup ??= { users: 0 });

async function start(maxWorkers: number): Promise<Shared> {
  const log = (m: string) => console.error(`[global-setup] ${m}`);
  // Set before the test processes start, so that they inherit it.
  const countDir = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-agent-cli-count-'));
  process.env.DURABLE_AGENT_CLI_COUNT_DIR = countDir;
  const cliPath = await findTemporalCli({ log });
  // Each server's SQLite database in a file, in memory all the same (tmpfs where there is one): the dev server's
  // in-memory database can vanish under load ("no such table: task_queues" on every query after it, seen once in the
  // suite; temporalio/temporal#3784), and every test file on that server then fails. A file outlives its connections.
  const dbDir = await fs.mkdtemp(path.join(existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'durable-agent-test-db-'));
  const servers = await Promise.all(
    Array.from({ length: Math.max(1, maxWorkers) }, (_, i) => startDevServer({ cliPath, uiPort: false, log, dbFile: path.join(dbDir, `server-${i + 1}.db`) })),
  );
  const addresses = servers.map((s) => s.address);
  const metricsPorts = servers.map((s) => s.metricsPort);

  // The workflows may not exist yet while the project is being assembled; unit tests must still run then.
  const workflowsPath = fileURLToPath(new URL('../src/workflows/index.ts', import.meta.url));
  if (!existsSync(workflowsPath)) {
    log(`${workflowsPath} not found: no workflow bundle`);
    return { servers, dbDir, addresses, metricsPorts, bundlePath: '', encodingBundlePath: '', countDir };
  }
  // Two bundles, as `npm run build` makes them (src/worker/workflow-code.ts): Temporal's failure converter in the
  // workflow sandbox, and the project's for workers that encrypt.
  const tmpDir = await fs.mkdtemp(path.join(os.tmpdir(), 'durable-agent-test-'));
  const bundle = async (file: string, failureConverterPath?: string) => {
    const started = Date.now();
    const { code } = await bundleWorkflowCode({ workflowsPath, failureConverterPath, workflowInterceptorModules: [OTEL_WORKFLOW_INTERCEPTORS], logger: new DefaultLogger('WARN') });
    await fs.writeFile(path.join(tmpDir, file), code);
    log(`workflow bundle ${file} (${Math.round(code.length / 1024)} KiB) built in ${Date.now() - started} ms`);
    return path.join(tmpDir, file);
  };
  const bundlePath = await bundle('workflow-bundle.js');
  const encodingBundlePath = await bundle('workflow-bundle-encoding-failures.js', FAILURE_CONVERTER_PATH);
  return { servers, dbDir, tmpDir, addresses, metricsPorts, bundlePath, encodingBundlePath, countDir };
}

export async function setup({ provide, config }: TestProject): Promise<void> {
  setupState.users++;
  setupState.shared ??= start(config.maxWorkers);
  const { addresses, metricsPorts, bundlePath, encodingBundlePath } = await setupState.shared;
  provide('temporalAddresses', addresses);
  provide('temporalMetricsPorts', metricsPorts);
  provide('workflowBundlePath', bundlePath);
  provide('encodingWorkflowBundlePath', encodingBundlePath);
}

export async function teardown(): Promise<void> {
  if (--setupState.users > 0 || !setupState.shared) return;
  const { servers, dbDir, tmpDir, countDir } = await setupState.shared;
  setupState.shared = undefined;
  await reportCliProcesses(countDir);
  await Promise.all(servers.map((s) => s.stop()));
  await fs.rm(dbDir, { recursive: true, force: true });
  if (tmpDir) await fs.rm(tmpDir, { recursive: true, force: true });
}

/** The run's count of spawned `durable-agent` processes, and the files that spawned the most. */
async function reportCliProcesses(countDir: string): Promise<void> {
  const lines = (await fs.readFile(path.join(countDir, CLI_COUNT_FILE), 'utf8').catch(() => '')).split('\n').filter(Boolean);
  await fs.rm(countDir, { recursive: true, force: true });
  const count = (column: number) => {
    const by = new Map<string, number>();
    for (const line of lines) by.set(line.split('\t')[column], (by.get(line.split('\t')[column]) ?? 0) + 1);
    return [...by].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([name, n]) => `${name || '(none)'} (${n})`).join(', ');
  };
  // By file and by command: what to look at next when the count grows.
  console.error(`[cli-processes] ${lines.length} durable-agent processes spawned${lines.length ? `; most by ${count(0)}; commands: ${count(1)}` : ''}`);
}
