// The agent's workflow threads keep Temporal's deadlock watchdog (`runInContext`'s `timeout`) on every call into a
// workflow context that runs workflow code, and drop it on the SDK's calls that run its own code alone
// (src/worker/workflow-threads.ts): a workflow stuck in `activate` or `tryUnblockConditions` still times out; the same
// work in `concludeActivation` does not. Each side runs in a worker thread of its own, with and without the preload.
import { Worker } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CALLS_WITHOUT_WORKFLOW_CODE, PRELOAD_FLAG } from '../../src/worker/workflow-threads.js';

const THREAD = fileURLToPath(new URL('../fixtures/watchdog-thread.cjs', import.meta.url));

function outcomes(execArgv: string[]): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(THREAD, { execArgv });
    thread.once('message', (m: Record<string, string>) => void thread.terminate().then(() => resolve(m)));
    thread.once('error', reject);
  });
}

describe('the deadlock watchdog in the agent’s workflow threads', () => {
  it('still times out the calls that run workflow code, and not concludeActivation, which runs the SDK’s alone', async () => {
    expect(await outcomes(PRELOAD_FLAG)).toEqual({ activate: 'ERR_SCRIPT_EXECUTION_TIMEOUT', tryUnblockConditions: 'ERR_SCRIPT_EXECUTION_TIMEOUT', concludeActivation: 'returned' });
    // Without the preload (as Temporal makes its threads, and `workflowStackTraces: true` does) each call times out.
    expect(await outcomes([])).toEqual({ activate: 'ERR_SCRIPT_EXECUTION_TIMEOUT', tryUnblockConditions: 'ERR_SCRIPT_EXECUTION_TIMEOUT', concludeActivation: 'ERR_SCRIPT_EXECUTION_TIMEOUT' });
  });

  it('matches how the SDK calls into a reused context: one vm.Script, the function named in __temporal_args, a timeout', () => {
    // Were the SDK to call another way, the preload would leave every watchdog in place (safe, but the cost back):
    // this names the file to read again.
    const require = createRequire(import.meta.url);
    const file = path.join(path.dirname(require.resolve('@temporalio/worker')), 'workflow', 'reusable-vm.js');
    const source = readFileSync(file, 'utf8');
    expect(source).toContain('context.__temporal_args = [holder, fn, args];');
    expect(source).toMatch(/callIntoVmScript\.runInContext\(context, \{\s*timeout: isolateExecutionTimeoutMs/);
    // Each call the preload leaves unwatched is still one of the SDK's (a renamed one would keep its watchdog).
    const workerInterface = readFileSync(require.resolve('@temporalio/workflow/lib/worker-interface.js'), 'utf8');
    for (const fn of CALLS_WITHOUT_WORKFLOW_CODE) expect(workerInterface).toContain(`function ${fn}()`);
  });
});
