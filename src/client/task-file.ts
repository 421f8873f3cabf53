// Many runs at once: a list of tasks (a task file's lines) started as a named set, a "task batch". Each run's workflow
// id is derived from the set's name and what its line says, so starting the same list twice attaches to the runs
// the first start made instead of starting them again; each run carries the AgentTaskBatch search attribute, so
// the set can be listed and its results read by name. (Not to be confused with the Message Batches API.)
import type { Client } from '@temporalio/client';
import { canonicalJson } from '../core/canonical.js';
import { sha256Hex } from '../core/sha256.js';
import type { AgentResult } from '../core/types.js';
import { listRuns, type RunSummary } from './inspect.js';
import { getAgentResult, slugOf, startAgent, type StartAgentOptions, type StartedAgent } from './start.js';

/** A task batch's name: it goes into workflow ids and a visibility query. */
const BATCH_NAME = /^[A-Za-z0-9][\w.@-]{0,79}$/;

export class InvalidTaskBatchError extends Error {
  override name = 'InvalidTaskBatchError';
}

export interface BatchTask extends Pick<StartAgentOptions, 'task' | 'settings' | 'priority'> {
  /** The run's workflow id; by default `taskWorkflowId(batch, key)`. */
  workflowId?: string;
  /** What makes the task itself (its id is derived from it): by default the task and settings. A task file passes its
   * line, so that the flags of the command line do not change the ids. */
  key?: string;
}

export interface StartTasksOptions {
  /** The set's name (AgentTaskBatch): letters, digits and . _ @ -, at most 80. */
  batch: string;
  tasks: readonly BatchTask[];
  /** At most this many of the set's runs running at once: a start waits for one of them to end. Default: no limit
   * (every run starts at once; the workers' slots decide how many make progress). */
  concurrency?: number;
  taskQueue?: string;
  /** Called as each run starts (or is found already started), in the order they do. */
  onStarted?: (started: StartedTask) => void;
}

export interface StartedTask extends StartedAgent {
  /** The task's position in `tasks` (0-based). */
  index: number;
}

/** How many starts are in flight at once when no concurrency limits the runs. */
const STARTS_IN_FLIGHT = 16;

/** Starts a run per task (idempotently: a task whose run exists, running or closed, attaches to it). Returns them in
 * the order of `tasks`. Two tasks with the same `workflowId` are refused (InvalidTaskBatchError) before any starts. */
export async function startTasks(client: Client, options: StartTasksOptions): Promise<StartedTask[]> {
  checkBatchName(options.batch);
  const { batch, concurrency } = options;
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) {
    throw new InvalidTaskBatchError(`concurrency must be a whole number >= 1 (got ${concurrency})`);
  }
  const ids = taskWorkflowIds(batch, options.tasks);
  // A second task with an id already given would attach to the first's run: its own task would never run.
  const firstWith = new Map<string, number>();
  for (const [index, id] of ids.entries()) {
    const first = firstWith.get(id);
    if (first !== undefined) throw new InvalidTaskBatchError(`tasks ${first + 1} and ${index + 1} have the same workflowId "${id}": each run needs its own id`);
    firstWith.set(id, index);
  }
  const started: StartedTask[] = new Array<StartedTask>(options.tasks.length);
  const slots = new Slots(concurrency ?? STARTS_IN_FLIGHT);
  const running: Promise<void>[] = [];
  let failure: { err: unknown } | undefined;
  for (const [index, t] of options.tasks.entries()) {
    await slots.take();
    if (failure) break; // a start the server refused: start no more (those started stay started)
    const one = (async () => {
      let holdsSlot = true;
      try {
        const run = await startAgent(client, { task: t.task, settings: t.settings, workflowId: ids[index], taskQueue: options.taskQueue, priority: t.priority, taskBatch: batch });
        started[index] = { ...run, index };
        options.onStarted?.(started[index]);
        if (concurrency !== undefined) {
          // With a concurrency limit the slot is the run's until it ends, not only its start's: the next start
          // waits for it. Once the last task has started nothing waits any more (the runs go on by themselves).
          holdsSlot = false;
          void client.workflow
            .getHandle(run.workflowId)
            .result()
            .catch(() => undefined)
            .finally(() => slots.give());
        }
      } catch (err) {
        failure ??= { err };
      } finally {
        if (holdsSlot) slots.give();
      }
    })();
    running.push(one);
  }
  await Promise.all(running);
  if (failure) throw failure.err;
  return started;
}

/** The workflow ids of `tasks` in batch `batch`: a task's own `workflowId`, else `<batch>-<slug>-<hash of key>`, and a
 * second identical task gets `-2` (so a list that holds the same task twice starts it twice, every time). */
export function taskWorkflowIds(batch: string, tasks: readonly Pick<BatchTask, 'task' | 'settings' | 'workflowId' | 'key'>[]): string[] {
  const seen = new Map<string, number>();
  return tasks.map((t) => {
    if (t.workflowId) return t.workflowId;
    const hash = sha256Hex(t.key ?? canonicalJson({ task: t.task, settings: t.settings })).slice(0, 12);
    const n = (seen.get(hash) ?? 0) + 1;
    seen.set(hash, n);
    return `${batch}-${slugOf(t.task, 24) || 'task'}-${hash}${n > 1 ? `-${n}` : ''}`;
  });
}

/** The runs of a task batch (the current run of each id), newest first; all of them unless `limit` caps how many runs
 * are read (earlier runs of an id count too). result --batch reads them all: a cap would report a part as the whole. */
export async function listTaskBatch(client: Client, batch: string, limit = Number.POSITIVE_INFINITY): Promise<RunSummary[]> {
  checkBatchName(batch);
  return (await listRuns(client, { batch, limit })).filter((r) => r.current);
}

/** Waits for every run of a task batch to end and returns their results, in the order listTaskBatch gives. */
export async function getTaskBatchResults(client: Client, batch: string): Promise<AgentResult[]> {
  const runs = await listTaskBatch(client, batch);
  const results: AgentResult[] = new Array<AgentResult>(runs.length);
  const slots = new Slots(STARTS_IN_FLIGHT);
  await Promise.all(
    runs.map(async (r, i) => {
      await slots.take();
      try {
        results[i] = await getAgentResult(client, r.workflowId);
      } finally {
        slots.give();
      }
    }),
  );
  return results;
}

export function checkBatchName(batch: string): void {
  if (typeof batch !== 'string' || !BATCH_NAME.test(batch)) {
    throw new InvalidTaskBatchError(`the batch name "${String(batch).slice(0, 60)}" is not usable: letters, digits and . _ @ - (at most 80, starting with a letter or digit)`);
  }
}

/** A counting semaphore. */
class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  constructor(size: number) {
    this.free = size;
  }
  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}
