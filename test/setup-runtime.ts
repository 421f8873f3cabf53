// Vitest setupFiles: runs in each test process before its test file. Installs the Temporal runtime with a
// logger that keeps every entry (tests read them through `workerLogs()`) and prints only warnings and errors,
// so the run's output is not buried under worker state changes.
import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import { inject } from 'vitest';
import { setDefaultWorkflowBundle } from '../src/workflow-code.js';

const entries: LogEntry[] = [];
const print = new DefaultLogger('WARN');

Runtime.install({
  logger: new DefaultLogger('DEBUG', (entry) => {
    entries.push(entry);
    if (entry.level === 'WARN' || entry.level === 'ERROR') print.log(entry.level, entry.message, entry.meta);
  }),
});

export function workerLogs(): readonly LogEntry[] {
  return entries;
}

// Reading a run from its history replays it through the workflow code: the suite's one bundle, not a webpack
// run per test process.
setDefaultWorkflowBundle(inject('workflowBundlePath'));
