// How big the agent's worker is: how many runs it keeps in memory between turns, how many workflow tasks and tool
// calls it works on at once, and how many requests it keeps polling the server with. The agent's own defaults
// (AGENT_WORKER_SIZING, with the reasons) are applied by createAgentWorker and the `worker` command; a team's own
// worker with AgentPlugin keeps its own settings and can spread `agentWorkerSizing()` into Worker.create.
import { getHeapStatistics } from 'node:v8';
import type { WorkerOptions } from '@temporalio/worker';
import { AGENT_WORKER_SIZING, CACHED_RUNS_PER_HEAP_GB, HEAP_KEPT_FROM_CACHE_MB } from './core/policies.js';

/** Pollers of one kind of task: at most this many polls open at once, or `'auto'`: as many as the server's
 * feedback asks for (Temporal's autoscaling poller behavior, 1 to 100). */
export type Pollers = number | 'auto';

export interface WorkerSizing {
  /** Runs kept in memory between their workflow tasks (`maxCachedWorkflows`). A run that is not cached is
   * replayed from its whole history at its next turn. 0 turns the cache off. */
  maxCachedWorkflows?: number;
  /** Workflow tasks worked on at once (`maxConcurrentWorkflowTaskExecutions`); each needs its run in the cache,
   * so it cannot exceed `maxCachedWorkflows` (when the cache is on). */
  maxWorkflowTasks?: number;
  /** Workflow-task pollers (`workflowTaskPollerBehavior`); at least 2 (sticky and normal queue). */
  workflowPollers?: Pollers;
  /** Activity-task pollers of the agent's worker and of its model-queue worker (`activityTaskPollerBehavior`). */
  activityPollers?: Pollers;
  /** Tool calls at once on the agent's worker (its `maxConcurrentActivityTaskExecutions`; model calls have their
   * own slots, `maxModelCalls`). */
  maxToolCalls?: number;
}

/** The Worker.create options a sizing stands for. */
export type SizingWorkerOptions = Pick<
  WorkerOptions,
  'maxCachedWorkflows' | 'maxConcurrentWorkflowTaskExecutions' | 'workflowTaskPollerBehavior' | 'activityTaskPollerBehavior' | 'maxConcurrentActivityTaskExecutions'
>;

/** The Worker.create options of `sizing`, each unset value taken from the agent's defaults (AGENT_WORKER_SIZING),
 * lowered to fit the values given (a cache of 10 gets 10 workflow-task slots, not 40); a bad combination of given
 * values is an Error naming it. */
export function agentWorkerSizing(sizing: WorkerSizing = {}): SizingWorkerOptions {
  const d = AGENT_WORKER_SIZING;
  const cache = sizing.maxCachedWorkflows ?? heapCachedWorkflows();
  const tasks = sizing.maxWorkflowTasks ?? defaultWorkflowTasks(cache);
  const workflowPollers = sizing.workflowPollers ?? (typeof d.workflowPollers === 'number' ? Math.min(d.workflowPollers, tasks) : d.workflowPollers);
  const options: SizingWorkerOptions = {
    maxCachedWorkflows: cache,
    maxConcurrentWorkflowTaskExecutions: tasks,
    workflowTaskPollerBehavior: pollerBehavior(workflowPollers),
    activityTaskPollerBehavior: pollerBehavior(sizing.activityPollers ?? d.activityPollers),
    maxConcurrentActivityTaskExecutions: sizing.maxToolCalls ?? d.maxToolCalls,
  };
  checkWorkerSizing(options);
  return options;
}

/** The cache size when none is given: CACHED_RUNS_PER_HEAP_GB of this process's heap limit (Node's
 * `--max-old-space-size`), at least 10; the same as Temporal's default, computed here so that it can be shown. */
export function heapCachedWorkflows(heapLimitMb = getHeapStatistics().heap_size_limit / 2 ** 20): number {
  return Math.max(10, Math.floor((Math.max(heapLimitMb - HEAP_KEPT_FROM_CACHE_MB, 0) * CACHED_RUNS_PER_HEAP_GB) / 1024));
}

/** The workflow-task slots when none are given: the default, lowered to a smaller cache (Temporal's rule). */
export function defaultWorkflowTasks(maxCachedWorkflows: number): number {
  const d = AGENT_WORKER_SIZING.maxWorkflowTasks;
  return maxCachedWorkflows > 0 ? Math.max(2, Math.min(d, maxCachedWorkflows)) : d;
}

/** Temporal's rules for these options, checked before Worker.create (which would otherwise quietly lower the
 * workflow-task slots to the cache size with a warning in its log, or fail with a less direct message). */
export function checkWorkerSizing(o: Partial<SizingWorkerOptions>): void {
  const whole = (name: string, n: number | undefined, min: number) => {
    if (n !== undefined && (!Number.isSafeInteger(n) || n < min)) throw new Error(`worker sizing: ${name} must be a whole number of at least ${min} (got ${n})`);
  };
  whole('maxCachedWorkflows', o.maxCachedWorkflows, 0);
  whole('maxWorkflowTasks (maxConcurrentWorkflowTaskExecutions)', o.maxConcurrentWorkflowTaskExecutions, 2);
  whole('maxToolCalls (maxConcurrentActivityTaskExecutions)', o.maxConcurrentActivityTaskExecutions, 1);
  if (o.maxCachedWorkflows === 1) {
    throw new Error('worker sizing: maxCachedWorkflows must be 0 (no cache) or at least 2 (got 1)');
  }
  const cache = o.maxCachedWorkflows;
  const tasks = o.maxConcurrentWorkflowTaskExecutions;
  if (cache !== undefined && cache > 0 && tasks !== undefined && tasks > cache) {
    throw new Error(
      `worker sizing: maxWorkflowTasks (${tasks}) cannot exceed maxCachedWorkflows (${cache}): a workflow task needs its run in the cache; raise maxCachedWorkflows or lower maxWorkflowTasks`,
    );
  }
  const wftPollers = o.workflowTaskPollerBehavior;
  if (wftPollers?.type === 'simple-maximum' && wftPollers.maximum !== undefined) {
    whole('workflowPollers', wftPollers.maximum, 2);
    if (tasks !== undefined && wftPollers.maximum > tasks) {
      throw new Error(`worker sizing: workflowPollers (${wftPollers.maximum}) cannot exceed maxWorkflowTasks (${tasks}): a poll needs a free slot`);
    }
  }
  const atPollers = o.activityTaskPollerBehavior;
  if (atPollers?.type === 'simple-maximum') whole('activityPollers', atPollers.maximum, 1);
}

/** Temporal's PollerBehavior (not exported by @temporalio/worker under its name). */
type PollerBehavior = NonNullable<WorkerOptions['workflowTaskPollerBehavior']>;

function pollerBehavior(pollers: Pollers): PollerBehavior {
  return pollers === 'auto' ? { type: 'autoscaling' } : { type: 'simple-maximum', maximum: pollers };
}
