import { describe, expect, it } from 'vitest';
import { busyRefusal, ModelCallGate, modelQueueOnlyRefusal } from '../../src/activities/model-call-gate.js';

describe('ModelCallGate', () => {
  it('tryEnter takes a turn only while fewer than max calls run, and never waits', () => {
    const gate = new ModelCallGate(2);
    expect([gate.tryEnter(), gate.tryEnter(), gate.tryEnter()]).toEqual([true, true, false]);
    expect(gate.running).toBe(2);
    gate.leave();
    expect(gate.tryEnter()).toBe(true);
  });

  it('enter waits for a turn, first come first served, and a turn given back goes to the first waiter', async () => {
    const gate = new ModelCallGate(1);
    gate.tryEnter();
    const order: string[] = [];
    const first = gate.enter(new AbortController().signal).then(() => order.push('first'));
    const second = gate.enter(new AbortController().signal).then(() => order.push('second'));
    expect(gate.tryEnter()).toBe(false); // a waiter is owed the next turn, not a newcomer
    gate.leave();
    await first;
    expect(order).toEqual(['first']);
    expect(gate.running).toBe(1);
    gate.leave();
    await second;
    expect(order).toEqual(['first', 'second']);
  });

  it('a waiter whose call is cancelled leaves the line with the cancellation, and the next waiter gets the turn', async () => {
    const gate = new ModelCallGate(1);
    gate.tryEnter();
    const cancelled = new AbortController();
    const waiting = gate.enter(cancelled.signal);
    const next = gate.enter(new AbortController().signal);
    cancelled.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    gate.leave();
    await next;
    expect(gate.running).toBe(1);
  });

  it('refuses a bad maxModelCalls with its name', () => {
    expect(() => new ModelCallGate(0)).toThrow('maxModelCalls must be a whole number of at least 1 (got 0)');
  });

  it('the refusals say which calls go to the model queue, and why', () => {
    expect(busyRefusal(3)).toEqual({ refused: 'this-call', reason: expect.stringContaining('maxModelCalls (3)') });
    expect(modelQueueOnlyRefusal('rate limited')).toEqual({ refused: 'every-call', reason: 'rate limited: the run sends its model calls to the model queue' });
  });
});
