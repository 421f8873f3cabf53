// How big the agent's worker is: how many runs it keeps in memory between turns, how many workflow tasks and tool
// calls it works on at once, and how many requests it keeps polling the server with. The agent's own defaults
// (AGENT_WORKER_SIZING, with the reasons) are applied by createAgentWorker and the `worker` command; a team's own
// worker with AgentPlugin keeps its own settings and can spread `agentWorkerSizing()` into Worker.create.
import { getHeapStatistics } from 'node:v8';
import type { WorkerOptions } from '@temporalio/worker';
import { AGENT_WORKER_SIZING, CACHED_RUNS_PER_HEAP_GB, HEAP_KEPT_FROM_CACHE_MB } from '../core/policies.js';

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
  /** Activity-task pollers (`activityTaskPollerBehavior`). */
  activityPollers?: Pollers;
  /** Model and tool calls at once on the agent's worker (its `maxConcurrentActivityTaskExecutions`): a call beyond
   * it waits in the server's queue, holding no slot and no timeout. */
  maxActivities?: number;
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
    maxConcurrentActivityTaskExecutions: sizing.maxActivities ?? d.maxActivities,
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

/** What the sizing values are called where they were given: the library's option names (these), or the `worker`
 * command's flags (cli/worker-sizing-flags.ts), so that one rule speaks each one's language. */
export const SIZING_OPTION_NAMES = { maxCachedWorkflows: 'maxCachedWorkflows', maxWorkflowTasks: 'maxWorkflowTasks', workflowPollers: 'workflowPollers' };
export type SizingNames = Record<keyof typeof SIZING_OPTION_NAMES, string>;

/** The values the rule across sizing options is checked on, and which of them are defaults (said in the message,
 * since the user did not write them). */
export interface SizingValues {
  maxCachedWorkflows?: number;
  maxWorkflowTasks?: number;
  workflowPollers?: Pollers;
  defaulted?: { maxCachedWorkflows?: boolean; maxWorkflowTasks?: boolean };
}

/** Temporal's rules across the sizing values (no more workflow-task slots than cached runs, no more workflow
 * pollers than slots, no cache of 1), as the message naming the problem and the fix, in `names`; or undefined. */
export function sizingProblem(v: SizingValues, names: SizingNames = SIZING_OPTION_NAMES): string | undefined {
  const { maxCachedWorkflows: cache, maxWorkflowTasks: tasks, workflowPollers: pollers } = v;
  const shown = (n: number, defaulted?: boolean) => `${n}${defaulted ? ', the default' : ''}`;
  if (cache === 1) return `${names.maxCachedWorkflows} must be 0 (no cache) or at least 2 (got 1)`;
  if (cache !== undefined && cache > 0 && tasks !== undefined && tasks > cache) {
    return (
      `${names.maxWorkflowTasks} (${tasks}) cannot exceed ${names.maxCachedWorkflows} (${shown(cache, v.defaulted?.maxCachedWorkflows)}): ` +
      `a workflow task needs its run in the cache; raise ${names.maxCachedWorkflows} or lower ${names.maxWorkflowTasks}`
    );
  }
  if (typeof pollers === 'number' && tasks !== undefined && pollers > tasks) {
    return (
      `${names.workflowPollers} (${pollers}) cannot exceed ${names.maxWorkflowTasks} (${shown(tasks, v.defaulted?.maxWorkflowTasks)}): ` +
      `a poll needs a free slot; raise ${names.maxWorkflowTasks} or lower ${names.workflowPollers}`
    );
  }
  return undefined;
}

/** Temporal's rules for these options, checked before Worker.create (which would otherwise quietly lower the
 * workflow-task slots to the cache size with a warning in its log, or fail with a less direct message). */
export function checkWorkerSizing(o: Partial<SizingWorkerOptions>): void {
  const whole = (name: string, n: number | undefined, min: number) => {
    if (n !== undefined && (!Number.isSafeInteger(n) || n < min)) throw new Error(`worker sizing: ${name} must be a whole number of at least ${min} (got ${n})`);
  };
  whole('maxCachedWorkflows', o.maxCachedWorkflows, 0);
  whole('maxWorkflowTasks (maxConcurrentWorkflowTaskExecutions)', o.maxConcurrentWorkflowTaskExecutions, 2);
  whole('maxActivities (maxConcurrentActivityTaskExecutions)', o.maxConcurrentActivityTaskExecutions, 1);
  const wftPollers = o.workflowTaskPollerBehavior;
  const workflowPollers = wftPollers?.type === 'simple-maximum' ? wftPollers.maximum : undefined;
  whole('workflowPollers', workflowPollers, 2);
  const atPollers = o.activityTaskPollerBehavior;
  if (atPollers?.type === 'simple-maximum') whole('activityPollers', atPollers.maximum, 1);
  const problem = sizingProblem({ maxCachedWorkflows: o.maxCachedWorkflows, maxWorkflowTasks: o.maxConcurrentWorkflowTaskExecutions, workflowPollers });
  if (problem) throw new Error(`worker sizing: ${problem}`);
}

/** Temporal's PollerBehavior (not exported by @temporalio/worker under its name). */
type PollerBehavior = NonNullable<WorkerOptions['workflowTaskPollerBehavior']>;

function pollerBehavior(pollers: Pollers): PollerBehavior {
  return pollers === 'auto' ? { type: 'autoscaling' } : { type: 'simple-maximum', maximum: pollers };
}
