// Vitest setupFiles: runs in each test process before its test file. Installs the Temporal runtime with a
// logger that keeps every entry (tests read them through `workerLogs()`) and prints only warnings and errors,
// so the run's output is not buried under worker state changes.
import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import { inject } from 'vitest';
import { setDefaultWorkflowBundles } from '../src/worker/workflow-code.js';

// With `isolate: false` (vitest.config.ts) this file runs again before each test file of a process, in that
// process: the runtime is installed once per process (a second Runtime.install throws), and its log kept on globalThis
// so that every file reads the one the runtime writes to.
const state = globalThis as typeof globalThis & { durableAgentWorkerLogs?: LogEntry[] };
if (!state.durableAgentWorkerLogs) {
  const entries: LogEntry[] = (state.durableAgentWorkerLogs = []);
  const print = new DefaultLogger('WARN');
  Runtime.install({
    logger: new DefaultLogger('DEBUG', (entry) => {
      entries.push(entry);
      if (entry.level === 'WARN' || entry.level === 'ERROR') print.log(entry.level, entry.message, entry.meta);
    }),
  });
}
const entries = state.durableAgentWorkerLogs;
entries.length = 0; // each test file reads the entries of its own workers, as with a process of its own

export function workerLogs(): readonly LogEntry[] {
  return entries;
}

// Workers and the history reader use the suite's bundles (one per failure converter), not a webpack run per test
// process.
setDefaultWorkflowBundles({ plain: inject('workflowBundlePath'), encoding: inject('encodingWorkflowBundlePath') });
