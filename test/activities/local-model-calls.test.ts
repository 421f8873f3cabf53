// LocalModelCalls.watch: a worker's local model calls are told to end once it has been stopping for its grace time.
import type { State } from '@temporalio/worker';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalModelCalls } from '../../src/activities/local-model-calls.js';

/** Local calls watching a stand-in worker whose state the test sets. */
function watching(state: State, graceMs: number) {
  const worker = { state, getState: () => worker.state };
  const calls = new LocalModelCalls();
  return { worker, calls, unwatch: calls.watch(worker, graceMs) };
}

describe('LocalModelCalls.watch', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('aborts `stopping` once the worker has left RUNNING for its grace time', () => {
    const { worker, calls } = watching('INITIALIZED', 1_000);
    worker.state = 'RUNNING';
    vi.advanceTimersByTime(10_000);
    expect(calls.stopping.aborted).toBe(false);
    worker.state = 'DRAINING';
    vi.advanceTimersByTime(1_200); // noticed within a poll (250 ms), then the grace time
    expect(calls.stopping.aborted).toBe(false);
    vi.advanceTimersByTime(100);
    expect(calls.stopping.aborted).toBe(true);
  });

  it('a grace time of 0 ends the calls as soon as the shutdown is noticed', () => {
    const { worker, calls } = watching('RUNNING', 0);
    worker.state = 'STOPPING';
    vi.advanceTimersByTime(250);
    expect(calls.stopping.aborted).toBe(true);
  });

  it('stops watching when told: a worker that stopped on its own never aborts them later', () => {
    const { worker, calls, unwatch } = watching('RUNNING', 1_000);
    worker.state = 'DRAINING';
    vi.advanceTimersByTime(300);
    unwatch();
    vi.advanceTimersByTime(5_000);
    expect(calls.stopping.aborted).toBe(false);
  });
});

describe('LocalModelCalls', () => {
  it('lets any number of calls listen for the worker stopping without a MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => void warnings.push(w);
    process.on('warning', onWarning);
    try {
      const calls = new LocalModelCalls();
      for (let i = 0; i < 100; i++) calls.stopping.addEventListener('abort', () => {});
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on a later tick
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  });
});
