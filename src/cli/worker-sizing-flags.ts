// The `worker` command's sizing flags: the workflow cache, workflow-task slots, pollers and activity slots (docs/operations.md,
// "Sizing a worker"). Each is checked alone by the parser, and together here, before anything starts, by the
// library's own rule (sizingProblem in worker-sizing.ts) with the flag names in its message.
import { AGENT_WORKER_SIZING } from '../core/policies.js';
import { defaultWorkflowTasks, heapCachedWorkflows, sizingProblem, type Pollers, type SizingNames, type WorkerSizing } from '../worker/worker-sizing.js';
import type { Worker } from '@temporalio/worker';
import { UsageError, type FlagSpec, type Parsed } from '../core/args.js';

const D = AGENT_WORKER_SIZING;
const shown = (v: number | string) => (typeof v === 'number' ? v.toLocaleString('en-US') : v);

export const WORKER_SIZING_FLAGS = {
  'max-cached-workflows': {
    type: 'int',
    min: 0,
    max: 1_000_000,
    help: 'runs kept in memory between turns (default: 600 per GB of heap); a run not cached is replayed from its history at its next turn; 0: no cache',
    here: () => `default here: ${shown(heapCachedWorkflows())}`,
  },
  'max-workflow-tasks': {
    type: 'int',
    min: 2,
    max: 100_000,
    help: `workflow tasks at once (default ${shown(D.maxWorkflowTasks)}); at most --max-cached-workflows`,
  },
  'workflow-pollers': {
    type: 'string',
    value: 'N|auto',
    help: `workflow-task polls open at once (default ${shown(D.workflowPollers)}; at least 2), or auto: as many as the server's feedback asks for (opt-in: docs/operations.md, "Sizing a worker")`,
  },
  'activity-pollers': {
    type: 'string',
    value: 'N|auto',
    help: `activity-task polls open at once, per worker (default ${shown(D.activityPollers)}), or auto`,
  },
  'max-activities': {
    type: 'int',
    min: 1,
    max: 100_000,
    help: `model and tool calls at once on this worker (default ${shown(D.maxActivities)}); a call beyond it waits in the server's queue, holding no slot`,
  },
} satisfies Record<string, FlagSpec>;

const SIZING_FLAG_NAMES: SizingNames = { maxCachedWorkflows: '--max-cached-workflows', maxWorkflowTasks: '--max-workflow-tasks', workflowPollers: '--workflow-pollers' };

/** The WorkerSizing the flags ask for (unset ones: the agent's defaults, applied by createAgentWorker), or a
 * UsageError naming the flag and the fix. */
export function sizingFromFlags(flags: Parsed<typeof WORKER_SIZING_FLAGS>['flags']): WorkerSizing {
  const sizing: WorkerSizing = {
    maxCachedWorkflows: flags['max-cached-workflows'],
    maxWorkflowTasks: flags['max-workflow-tasks'],
    workflowPollers: pollers('workflow-pollers', flags['workflow-pollers'], 2),
    activityPollers: pollers('activity-pollers', flags['activity-pollers'], 1),
    maxActivities: flags['max-activities'],
  };
  const cache = sizing.maxCachedWorkflows ?? heapCachedWorkflows();
  const problem = sizingProblem(
    {
      maxCachedWorkflows: cache,
      maxWorkflowTasks: sizing.maxWorkflowTasks ?? defaultWorkflowTasks(cache),
      workflowPollers: sizing.workflowPollers,
      defaulted: { maxCachedWorkflows: sizing.maxCachedWorkflows === undefined, maxWorkflowTasks: sizing.maxWorkflowTasks === undefined },
    },
    SIZING_FLAG_NAMES,
  );
  if (problem) throw new UsageError(problem);
  return sizing;
}

/** `N` (at least `min`) or `auto`. */
function pollers(name: string, raw: string | undefined, min: number): Pollers | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'auto') return 'auto';
  if (!/^\d+$/.test(raw.trim())) throw new UsageError(`--${name} must be a whole number or auto (got "${raw}")`);
  const n = Number(raw);
  if (n < min) throw new UsageError(`--${name} must be at least ${min} (got ${n})`);
  if (n > 10_000) throw new UsageError(`--${name} must be at most 10000 (got ${n})`);
  return n;
}

/** What the created Worker runs with, in the flags' terms, for the worker's start-up line. */
export function describeSizing(options: Worker['options']): string {
  const slots = (s: (typeof options.tuner)['workflowTaskSlotSupplier']) => (s.type === 'fixed-size' ? String(s.numSlots) : s.type);
  const polls = (p: typeof options.workflowTaskPollerBehavior) => (p.type === 'autoscaling' ? `auto (${p.minimum}-${p.maximum})` : String(p.maximum));
  return (
    `cache ${options.maxCachedWorkflows} runs, ${slots(options.tuner.workflowTaskSlotSupplier)} workflow tasks, ` +
    `workflow pollers ${polls(options.workflowTaskPollerBehavior)}, activity pollers ${polls(options.activityTaskPollerBehavior)}, ` +
    `${slots(options.tuner.activityTaskSlotSupplier)} activities`
  );
}

/** How often the worker looks whether its workflow cache is full, and how often it says so at most. */
const CACHE_CHECK_MS = 10_000;
const CACHE_WARNING_EVERY_MS = 5 * 60_000;

/** Says on stderr, at most every 5 minutes, when the workflow cache is full: more runs are live than it holds, so
 * each turn of some run is a replay of its whole history. Returns the function that stops watching. */
export function warnWhenCacheFull(worker: Worker, log: (line: string) => void, checkEveryMs = CACHE_CHECK_MS): () => void {
  const max = worker.options.maxCachedWorkflows;
  let lastWarning = -Infinity;
  const timer = setInterval(() => {
    if (max === 0 || worker.getState() !== 'RUNNING' || worker.getStatus().numCachedWorkflows < max) return;
    if (Date.now() - lastWarning < CACHE_WARNING_EVERY_MS) return;
    lastWarning = Date.now();
    log(
      `warning: the workflow cache is full (${max} runs): runs beyond it are replayed from their history at each turn (slower, more CPU); ` +
        'raise --max-cached-workflows (and the heap, node --max-old-space-size) or run more workers',
    );
  }, checkEveryMs);
  timer.unref();
  return () => clearInterval(timer);
}
