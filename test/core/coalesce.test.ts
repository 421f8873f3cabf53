import { describe, expect, it } from 'vitest';
import { coalesced } from '../../src/core/coalesce.js';

/** A task whose runs finish only when the test says so. */
function gatedTask() {
  const gates: Array<() => void> = [];
  let runs = 0;
  const task = () =>
    new Promise<void>((resolve) => {
      runs++;
      gates.push(resolve);
    });
  return { task, runs: () => runs, release: () => gates.shift()?.(), pending: () => gates.length };
}

describe('coalesced', () => {
  it('runs a burst of triggers as one run in flight and one queued behind it', async () => {
    const t = gatedTask();
    const c = coalesced(t.task);
    const done = Array.from({ length: 20_000 }, () => c.trigger());
    await Promise.resolve();
    expect(t.runs()).toBe(1);
    t.release();
    await expect.poll(() => t.runs()).toBe(2);
    t.release();
    await Promise.all(done);
    await c.idle();
    expect(t.runs()).toBe(2);
  });

  it('runs once for a single trigger, and again for a trigger after it finished', async () => {
    let runs = 0;
    const c = coalesced(async () => {
      runs++;
    });
    await c.trigger();
    expect(runs).toBe(1);
    await c.trigger();
    expect(runs).toBe(2);
  });

  it('goes on after a run that failed', async () => {
    let runs = 0;
    const c = coalesced(async () => {
      runs++;
      if (runs === 1) throw new Error('boom');
    });
    await c.trigger();
    await c.trigger();
    expect(runs).toBe(2);
  });

  it('idle waits for the queued run too', async () => {
    const t = gatedTask();
    const c = coalesced(t.task);
    void c.trigger();
    void c.trigger();
    let idle = false;
    void c.idle().then(() => (idle = true));
    await Promise.resolve();
    t.release();
    await expect.poll(() => t.runs()).toBe(2);
    expect(idle).toBe(false);
    t.release();
    await expect.poll(() => idle).toBe(true);
  });
});
