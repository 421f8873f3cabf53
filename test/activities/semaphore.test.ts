// The per-worker bound on concurrent model calls.
import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../src/activities/semaphore.js';

/** Resolves to 'pending' when `p` has not settled after the current macrotask queue drained. */
async function state(p: Promise<unknown>): Promise<'resolved' | 'rejected' | 'pending'> {
  return Promise.race([
    p.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    new Promise<'pending'>((r) => setTimeout(() => r('pending'), 20)),
  ]);
}

describe('Semaphore', () => {
  it('refuses a size that is not a whole number >= 1', () => {
    for (const size of [0, -1, 1.5, Number.NaN]) expect(() => new Semaphore(size)).toThrow(/whole number >= 1/);
  });

  it('hands out `size` slots at once, and the next acquire waits for a release', async () => {
    const sem = new Semaphore(2);
    const a = await sem.acquire();
    await sem.acquire();
    expect(sem.inUse).toBe(2);
    const third = sem.acquire();
    expect(await state(third)).toBe('pending');
    a();
    expect(await state(third)).toBe('resolved');
    expect(sem.inUse).toBe(2);
  });

  it('serves waiters first in, first out, and a newcomer does not overtake a woken waiter', async () => {
    const sem = new Semaphore(1);
    const release = await sem.acquire();
    const order: string[] = [];
    const first = sem.acquire().then((r) => (order.push('first'), r));
    const second = sem.acquire().then((r) => (order.push('second'), r));
    release();
    const newcomer = sem.acquire().then((r) => (order.push('newcomer'), r));
    (await first)();
    (await second)();
    (await newcomer)();
    expect(order).toEqual(['first', 'second', 'newcomer']);
    expect(sem.inUse).toBe(0);
  });

  it('a release function frees its slot once, however often it is called', async () => {
    const sem = new Semaphore(1);
    const release = await sem.acquire();
    release();
    release();
    expect(sem.inUse).toBe(0);
    await sem.acquire();
    expect(await state(sem.acquire())).toBe('pending');
  });

  it('a waiter whose signal aborts rejects with the reason and gives up its place in the queue', async () => {
    const sem = new Semaphore(1);
    const release = await sem.acquire();
    const controller = new AbortController();
    const cancelled = sem.acquire(controller.signal);
    const next = sem.acquire();
    controller.abort(new Error('activity cancelled'));
    await expect(cancelled).rejects.toThrow('activity cancelled');
    release();
    expect(await state(next)).toBe('resolved');
    expect(sem.inUse).toBe(1);
  });

  it('an acquire with an already aborted signal rejects at once instead of waiting for a slot', async () => {
    const sem = new Semaphore(1);
    await sem.acquire();
    const controller = new AbortController();
    controller.abort(new Error('cancelled before the call'));
    expect(await state(sem.acquire(controller.signal))).toBe('rejected');
  });

  it('an abort after the slot was granted changes nothing', async () => {
    const sem = new Semaphore(1);
    const controller = new AbortController();
    const release = await sem.acquire(controller.signal);
    controller.abort(new Error('late'));
    expect(sem.inUse).toBe(1);
    release();
    expect(sem.inUse).toBe(0);
  });
});
