// The agent's workers run their workflow threads without the Temporal SDK's promise hook (workflow stack traces off).
// Why: for its stack-trace query, the SDK records a source-mapped stack trace of every promise workflow code creates,
// and the agent's turn creates about 29. That is the largest share of the agent's workflow CPU (bench/workflow-cpu.mjs
// --stack-traces both replays a 10-turn run with and without it; BENCHMARKS.md (a) has the figures). The SDK has no
// option for it, but it already runs without the hook wherever V8's `promiseHooks.createHook` is unavailable (Bun; it
// says so, and disables stack traces), so a workflow thread where `createHook` throws for the SDK's stack-trace recorder
// runs the same workflow code the same way: only the stack-trace queries (`__stack_trace`, `__enhanced_stack_trace`,
// the Web UI's "Stack Trace" tab) answer "Workflow stack traces are not enabled on this worker". Replay, determinism,
// cancellation scopes and unhandled-rejection handling do not use that hook (scopes rest on AsyncLocalStorage, whose
// own promise hook is left alone: test/workflow-threads.test.ts proves a deadline still cancels a held call).
//
// The same preload drops the SDK's per-call deadlock watchdog from its one call of an activation that runs no
// workflow code (concludeActivation; see DEADLOCK_WATCH_WHERE_WORKFLOW_CODE_RUNS below): every call that runs
// workflow code keeps it.
//
// How: the SDK creates each workflow thread with `new (require('node:worker_threads').Worker)(<its thread module>)`.
// While an agent worker is being created, that constructor is wrapped so that the SDK's thread (that file, and no
// other) starts with a preload making `createHook` throw for the recorder alone; other threads, and workers created at
// other times, are untouched. `workflowStackTraces: true` (CLI: `--workflow-stack-traces`) creates the worker as
// Temporal does.
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Worker as ThreadWorker, WorkerOptions as ThreadOptions } from 'node:worker_threads';

const require = createRequire(import.meta.url);
/** The CommonJS exports object the SDK reads `Worker` from at each construction (ESM imports are not affected). */
const workerThreads = require('node:worker_threads') as { Worker: typeof ThreadWorker };
/** The module the SDK's workflow threads run (its package has no exports map: resolved beside its entry). */
const WORKFLOW_THREAD_MODULE = path.join(path.dirname(require.resolve('@temporalio/worker')), 'workflow', 'workflow-worker-thread.js');

/** The SDK's calls into a reused workflow context that run its own code alone: no workflow code, so no deadlock
 * watchdog. `concludeActivation` collects the commands the activation's workflow code made (the code itself ran, and
 * its microtasks drained, in `activate` and `tryUnblockConditions`, which keep theirs). */
export const CALLS_WITHOUT_WORKFLOW_CODE = ['concludeActivation'] as const;

/** The SDK guards each call into a workflow context against a deadlock with `runInContext`'s `timeout` option, and
 * Node starts (and joins) a watchdog thread for each such call: about 0.1 ms, the largest cost in the agent's
 * workflow threads (a 100-agent profile: 62 % of their busy time is `runInContext`'s own; bench/vm-timeout.mjs). The
 * calls in CALLS_WITHOUT_WORKFLOW_CODE run without it; every call that runs workflow code keeps it, so a workflow
 * stuck in a loop still fails its task as Temporal's worker makes it (test/workflow-threads-watchdog.test.ts). The
 * call is told by the arguments the SDK's reused context reads (`__temporal_args`: holder, function, arguments). */
const DEADLOCK_WATCH_WHERE_WORKFLOW_CODE_RUNS = [
  `import vm from 'node:vm';`,
  `const runInContext = vm.Script.prototype.runInContext;`,
  `const unwatched = new Set(${JSON.stringify(CALLS_WITHOUT_WORKFLOW_CODE)});`,
  `vm.Script.prototype.runInContext = function runInContextWatchedWhereWorkflowCodeRuns(context, options) {`,
  `  if (options?.timeout !== undefined && unwatched.has(context?.__temporal_args?.[1])) { const { timeout, ...rest } = options; return runInContext.call(this, context, rest); }`,
  `  return runInContext.call(this, context, options);`,
  `};`,
];

/** Runs in the workflow thread before the SDK does: V8's promise hooks are unavailable to the SDK's stack-trace
 * recorder there (its `setPromiseHook`, in vm-shared.js), so it installs none; its one warning about it is dropped (the
 * worker's documentation says what is off, and why). Every other caller gets the real `createHook`: Node's
 * AsyncLocalStorage, which the SDK's cancellation scopes and OpenTelemetry's context rest on, installs its promise
 * hook through the same function, and must keep it. The caller is told by its call site's file, read structurally. */
export const WORKFLOW_THREAD_PRELOAD = [
  `import v8 from 'node:v8';`,
  `const createHook = v8.promiseHooks.createHook;`,
  `const callerFile = (callee) => {`,
  `  const prepare = Error.prepareStackTrace;`,
  `  Error.prepareStackTrace = (_, sites) => sites;`,
  `  try { const holder = {}; Error.captureStackTrace(holder, callee); return holder.stack?.[0]?.getFileName() ?? ''; }`,
  `  finally { Error.prepareStackTrace = prepare; }`,
  `};`,
  `v8.promiseHooks.createHook = function createHookButForTheRecorder(hooks) {`,
  `  if (/[\\/]@temporalio[\\/]worker[\\/]lib[\\/]workflow[\\/]vm-shared\.js$/.test(callerFile(createHookButForTheRecorder))) throw new Error('workflow stack traces are off on this worker (workflowStackTraces: false)');`,
  `  return createHook.call(this, hooks);`,
  `};`,
  `const warn = console.warn;`,
  `console.warn = function (...args) { if (typeof args[0] === 'string' && args[0].startsWith('v8.promiseHooks.createHook is not available')) return; return warn.apply(this, args); };`,
  ...DEADLOCK_WATCH_WHERE_WORKFLOW_CODE_RUNS,
].join('\n');
/** The flags that start a thread with the preload. */
export const PRELOAD_FLAG = ['--import', `data:text/javascript,${encodeURIComponent(WORKFLOW_THREAD_PRELOAD)}`];

let creating = 0;
let unwrapped: typeof ThreadWorker | undefined;

/** `create` (a `Worker.create`) with the workflow threads it starts running without the SDK's promise hook. */
export async function withoutWorkflowStackTraces<T>(create: () => Promise<T>): Promise<T> {
  if (creating++ === 0) {
    unwrapped = workerThreads.Worker;
    workerThreads.Worker = withPreloadForWorkflowThreads(unwrapped);
  }
  try {
    return await create();
  } finally {
    if (--creating === 0 && unwrapped) {
      workerThreads.Worker = unwrapped;
      unwrapped = undefined;
    }
  }
}

function withPreloadForWorkflowThreads(Base: typeof ThreadWorker): typeof ThreadWorker {
  function Wrapped(filename: string | URL, options?: ThreadOptions): ThreadWorker {
    if (typeof filename !== 'string' || path.resolve(filename) !== WORKFLOW_THREAD_MODULE) return new Base(filename, options);
    // Given execArgv, a thread no longer inherits the process's Node options: they are given too, but for those a thread
    // refuses (V8 and process-wide options, which it shares anyway), which Node names in its error.
    let inherited = options?.execArgv ?? process.execArgv;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return new Base(filename, { ...options, execArgv: [...inherited, ...PRELOAD_FLAG] });
      } catch (err) {
        const refused = refusedFlags(err);
        if (!refused) throw err;
        inherited = inherited.filter((flag) => !refused.has(flag));
      }
    }
    return new Base(filename, options); // as Temporal makes it: stack traces on
  }
  Wrapped.prototype = Base.prototype;
  return Wrapped as unknown as typeof ThreadWorker;
}

/** The flags of an ERR_WORKER_INVALID_EXEC_ARGV ("Initiated Worker with invalid execArgv flags: --a, --b"). */
function refusedFlags(err: unknown): Set<string> | null {
  if ((err as { code?: string }).code !== 'ERR_WORKER_INVALID_EXEC_ARGV') return null;
  const listed = /flags: (.*)$/.exec((err as Error).message)?.[1];
  return listed ? new Set(listed.split(', ')) : null;
}
