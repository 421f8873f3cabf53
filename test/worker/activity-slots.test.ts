import type { ActivitySlotInfo, SlotPermit, WorkerOptions } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { localModelCallBound, ToolSlotsBesideModelCalls, toolCallSlotsOf, withModelCallsBesideTools } from '../../src/worker/activity-slots.js';

const used = (s: ToolSlotsBesideModelCalls, permit: SlotPermit, activityType: string) =>
  s.markSlotUsed({ permit, slotInfo: { type: 'activity', activityType } satisfies ActivitySlotInfo });

describe('ToolSlotsBesideModelCalls', () => {
  it('bounds reserved and tool-call slots at maxToolCalls; a slot holding a model call leaves the count', () => {
    const slots = new ToolSlotsBesideModelCalls(2);
    const a = slots.tryReserveSlot()!;
    const b = slots.tryReserveSlot()!;
    expect(slots.tryReserveSlot()).toBeNull();
    used(slots, a, 'runTool');
    used(slots, b, 'callModel');
    expect([slots.counted, slots.modelCalls]).toEqual([1, 1]);
    const c = slots.tryReserveSlot()!; // the model call's slot is free for the next tool call
    expect(c).not.toBeNull();
    expect(slots.tryReserveSlot()).toBeNull();
    slots.releaseSlot({ permit: b, slotInfo: { type: 'activity', activityType: 'callModel' } });
    expect(slots.modelCalls).toBe(0);
    expect(slots.tryReserveSlot()).toBeNull(); // still two counted: a tool call and c
  });

  it('a reservation waits until a slot is released, and an unused reservation given back frees its slot', async () => {
    const slots = new ToolSlotsBesideModelCalls(1);
    const first = slots.tryReserveSlot()!;
    let second: SlotPermit | undefined;
    const waiting = slots.reserveSlot({}, new AbortController().signal).then((p) => (second = p));
    await Promise.resolve();
    expect(second).toBeUndefined();
    slots.releaseSlot({ permit: first }); // a poll that found no task
    await waiting;
    expect(second).toBeDefined();
    expect(slots.counted).toBe(1);
  });

  it('a reservation that turns out to be a model call wakes a waiting reservation', async () => {
    const slots = new ToolSlotsBesideModelCalls(1);
    const first = slots.tryReserveSlot()!;
    const waiting = slots.reserveSlot({}, new AbortController().signal);
    used(slots, first, 'callModel');
    await expect(waiting).resolves.toBeDefined();
    expect([slots.counted, slots.modelCalls]).toEqual([1, 1]);
  });

  it('an aborted reservation rejects with the abort and takes no slot; a second release of a permit counts once', async () => {
    const slots = new ToolSlotsBesideModelCalls(1);
    const first = slots.tryReserveSlot()!;
    const abort = new AbortController();
    const waiting = slots.reserveSlot({}, abort.signal);
    abort.abort(new Error('poller shut down'));
    await expect(waiting).rejects.toThrow('poller shut down');
    slots.releaseSlot({ permit: first });
    slots.releaseSlot({ permit: first });
    expect(slots.counted).toBe(0);
    expect(slots.tryReserveSlot()).not.toBeNull();
  });
});

describe('withModelCallsBesideTools', () => {
  it("turns the worker's slot options into a tuner: ours for activities, fixed pools for the rest, lowered to the cache like the SDK", () => {
    const options = withModelCallsBesideTools({ taskQueue: 'q', maxConcurrentActivityTaskExecutions: 7, maxConcurrentWorkflowTaskExecutions: 40, maxCachedWorkflows: 10 }, 500)!;
    expect(options).not.toHaveProperty('maxConcurrentActivityTaskExecutions');
    expect(options).not.toHaveProperty('maxConcurrentWorkflowTaskExecutions');
    const tuner = options.tuner as { workflowTaskSlotSupplier: unknown; activityTaskSlotSupplier: unknown; localActivityTaskSlotSupplier: unknown };
    expect(tuner.workflowTaskSlotSupplier).toEqual({ type: 'fixed-size', numSlots: 10 });
    expect(tuner.localActivityTaskSlotSupplier).toEqual({ type: 'fixed-size', numSlots: 100 });
    expect(toolCallSlotsOf(tuner.activityTaskSlotSupplier)).toBe(7);
    expect(toolCallSlotsOf({ type: 'custom', supplier: tuner.activityTaskSlotSupplier })).toBe(7); // as the SDK wraps it
  });

  it("gives local activities the SDK's 100 slots plus the process's model calls (local model calls), unless the options set them", () => {
    const local = (options: Partial<WorkerOptions>) =>
      (withModelCallsBesideTools({ taskQueue: 'q', ...options }, 500, 1_000)!.tuner as { localActivityTaskSlotSupplier: unknown }).localActivityTaskSlotSupplier;
    expect(local({})).toEqual({ type: 'fixed-size', numSlots: 1_100 });
    expect(local({ maxConcurrentLocalActivityExecutions: 20 })).toEqual({ type: 'fixed-size', numSlots: 20 });
  });

  it('leaves a worker with a tuner of its own as it is (undefined)', () => {
    const tuner = { tunerOptions: { targetMemoryUsage: 0.8, targetCpuUsage: 0.9 } };
    expect(withModelCallsBesideTools({ taskQueue: 'q', tuner }, 500)).toBeUndefined();
  });
});

describe('localModelCallBound', () => {
  it("is the workflow-task slots the worker's pollers leave free but a quarter (at least 2), at least 1 (its fixed pool's, else the option's, else the SDK's 40)", () => {
    const sized = (options: Partial<WorkerOptions>) => localModelCallBound(withModelCallsBesideTools({ taskQueue: 'q', maxCachedWorkflows: 1_000, ...options }, 500)!);
    expect(sized({})).toBe(23); // 40 slots, 10 pollers
    expect(sized({ maxConcurrentWorkflowTaskExecutions: 100, workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 20 } })).toBe(60);
    expect(sized({ maxConcurrentWorkflowTaskExecutions: 40, maxCachedWorkflows: 12 })).toBe(1); // 12 slots, 10 pollers
    expect(sized({ maxConcurrentWorkflowTaskExecutions: 6, workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 2 } })).toBe(2);
    expect(localModelCallBound({ taskQueue: 'q', maxConcurrentWorkflowTaskExecutions: 3 })).toBe(1);
    expect(localModelCallBound({ taskQueue: 'q', tuner: { tunerOptions: { targetMemoryUsage: 0.8, targetCpuUsage: 0.9 } } })).toBe(23);
  });
});
