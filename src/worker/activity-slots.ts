// Activity slots that keep model calls beside tool calls on the run's own task queue. A worker reserves a slot
// before it knows which activity will arrive, so a plain pool of N slots would let model calls (eager on the run's
// queue, see core/model-call-route.ts) take the tool calls' slots. This supplier bounds what is reserved and not
// yet known plus the tool calls (and any other activity) at `maxToolCalls`, as the fixed pool did; a slot that
// turns out to hold a model call leaves that count at once (the model calls' own bound is the process's
// ModelCallGate, which refuses a call beyond `maxModelCalls` at its start, so it releases its slot at once too).
import { waitInLine } from '../activities/model-call-gate.js';
import type { ActivitySlotInfo, CustomSlotSupplier, SlotMarkUsedContext, SlotPermit, SlotReleaseContext, WorkerOptions } from '@temporalio/worker';

type Permit = { holds: 'unknown' | 'model call' | 'other' | 'released' };

export class ToolSlotsBesideModelCalls implements CustomSlotSupplier<ActivitySlotInfo> {
  readonly type = 'custom';
  /** Slots reserved (for a poll or an eager task) whose activity is not known yet, and those holding another
   * activity than a model call: together at most maxToolCalls. */
  #counted = 0;
  #modelCalls = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly maxToolCalls: number) {}

  /** Model calls holding a slot now (not counted against maxToolCalls). */
  get modelCalls(): number {
    return this.#modelCalls;
  }

  /** Reserved slots not holding a model call (unknown yet, or a tool call). */
  get counted(): number {
    return this.#counted;
  }

  async reserveSlot(_ctx: unknown, abortSignal: AbortSignal): Promise<SlotPermit> {
    for (;;) {
      const permit = this.tryReserveSlot();
      if (permit) return permit;
      await waitInLine(this.#waiting, abortSignal); // an eager reservation may take the freed slot first: wait again
    }
  }

  tryReserveSlot(): SlotPermit | null {
    if (this.#counted >= this.maxToolCalls) return null;
    this.#counted++;
    return { holds: 'unknown' } satisfies Permit;
  }

  markSlotUsed(ctx: SlotMarkUsedContext<ActivitySlotInfo>): void {
    const permit = ctx.permit as Permit;
    if (permit.holds !== 'unknown') return;
    if (ctx.slotInfo.activityType === 'callModel') {
      permit.holds = 'model call';
      this.#counted--;
      this.#modelCalls++;
      this.#wakeOne();
    } else {
      permit.holds = 'other';
    }
  }

  releaseSlot(ctx: SlotReleaseContext<ActivitySlotInfo>): void {
    const permit = ctx.permit as Permit;
    if (permit.holds === 'released') return;
    if (permit.holds === 'model call') this.#modelCalls--;
    else this.#counted--;
    permit.holds = 'released';
    this.#wakeOne();
  }

  #wakeOne(): void {
    if (this.#counted < this.maxToolCalls) this.#waiting.shift()?.();
  }
}

/** The SDK's slot defaults, for a worker given none (worker-options.js). */
const SDK_DEFAULT_SLOTS = { workflowTasks: 40, activities: 100, localActivities: 100, nexusTasks: 100 } as const;
const SDK_DEFAULT_POLLS = 10;

/** `options` with their activity slots made a ToolSlotsBesideModelCalls of `maxConcurrentActivityTaskExecutions`,
 * and the other slots the fixed pools the SDK would have made of them (its defaults and its rule that workflow-task
 * slots do not exceed a cache), but for the local-activity slots: unless given, the SDK's 100 plus `modelCalls` (the
 * process's `maxModelCalls`), so that runs with `localModelCalls` are bounded by `maxModelCalls`, as other model
 * calls are, and leave fast tools their 100. Undefined when the options have a tuner of their own (left to it). */
export function withModelCallsBesideTools(options: WorkerOptions, defaultCachedWorkflows: number, modelCalls = 0): WorkerOptions | undefined {
  if (options.tuner) return undefined;
  const { maxConcurrentActivityTaskExecutions, maxConcurrentWorkflowTaskExecutions, maxConcurrentLocalActivityExecutions, maxConcurrentNexusTaskExecutions, ...rest } = options;
  const cache = options.maxCachedWorkflows ?? defaultCachedWorkflows;
  const workflowTasks = maxConcurrentWorkflowTaskExecutions ?? SDK_DEFAULT_SLOTS.workflowTasks;
  const activities = maxConcurrentActivityTaskExecutions ?? SDK_DEFAULT_SLOTS.activities;
  const nexusTasks = maxConcurrentNexusTaskExecutions ?? SDK_DEFAULT_SLOTS.nexusTasks;
  // Without a tuner the SDK polls at most min(10, slots) at once; with one, 10: kept as it would have been.
  const polls = (slots: number) => ({ type: 'simple-maximum', maximum: Math.min(SDK_DEFAULT_POLLS, slots) }) as const;
  return {
    ...rest,
    workflowTaskPollerBehavior: options.workflowTaskPollerBehavior ?? polls(workflowTasks),
    activityTaskPollerBehavior: options.activityTaskPollerBehavior ?? polls(activities),
    nexusTaskPollerBehavior: options.nexusTaskPollerBehavior ?? polls(nexusTasks),
    tuner: {
      workflowTaskSlotSupplier: { type: 'fixed-size', numSlots: cache > 0 ? Math.max(2, Math.min(workflowTasks, cache)) : workflowTasks },
      activityTaskSlotSupplier: new ToolSlotsBesideModelCalls(activities),
      localActivityTaskSlotSupplier: { type: 'fixed-size', numSlots: maxConcurrentLocalActivityExecutions ?? SDK_DEFAULT_SLOTS.localActivities + modelCalls },
      nexusTaskSlotSupplier: { type: 'fixed-size', numSlots: nexusTasks },
    },
  };
}

/** How many local model calls (`localModelCalls`) a worker runs at once: the workflow-task slots its pollers leave
 * free (each poll holds a slot while it waits) but a quarter of them (at least 2), and at least 1; 23 with the defaults
 * (40 slots, 10 pollers). A local call runs inside its workflow task, which holds a slot until the call ends; beyond
 * the bound the calls are made as activities, and the slots kept serve the workflow tasks of every other run (such a
 * task holds its slot for milliseconds). Measured without a bound: 80 runs' 2 s calls on the default worker peaked at
 * 31 at once; 6 on 2 slots ran one at a time, in 14.7 s. `options` as the worker will run them: a fixed pool's size,
 * else the SDK's default (a tuner of one's own that sizes the pool otherwise: its default). */
export function localModelCallBound(options: WorkerOptions): number {
  const supplier = options.tuner && 'workflowTaskSlotSupplier' in options.tuner ? options.tuner.workflowTaskSlotSupplier : undefined;
  const slots = supplier?.type === 'fixed-size' ? supplier.numSlots : (options.maxConcurrentWorkflowTaskExecutions ?? SDK_DEFAULT_SLOTS.workflowTasks);
  const pollers = options.workflowTaskPollerBehavior?.maximum ?? Math.min(SDK_DEFAULT_POLLS, slots);
  const free = slots - pollers;
  return Math.max(1, free - Math.max(2, Math.floor(free / 4)));
}

/** The tool-call bound of a worker's activity slots as the SDK compiled them: a fixed pool's size, or ours. */
export function toolCallSlotsOf(supplier: unknown): number | string {
  const s = supplier as { type?: string; numSlots?: number; supplier?: unknown };
  if (s.type === 'fixed-size' && s.numSlots !== undefined) return s.numSlots;
  const own = s.supplier ?? supplier; // the SDK wraps a custom supplier (NativeifiedCustomSlotSupplier)
  if (own instanceof ToolSlotsBesideModelCalls) return own.maxToolCalls;
  return s.type ?? 'unknown';
}
