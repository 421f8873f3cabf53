// The bound on model calls at once in a worker process (`maxModelCalls`), shared by the model calls it runs from
// the model queue and those the server hands it on a run's own queue (eagerly). A call from the model queue waits
// for its turn (it already waited in the server's queue and holds a slot of the model-queue worker only); a call on
// the run's queue does not wait: it is refused at once (an answer, not a wait) and the run sends it to the model queue (model-call-route.ts).
import type { ModelCallRefused } from '../core/model-call-route.js';

export class ModelCallGate {
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly max: number) {
    if (!Number.isSafeInteger(max) || max < 1) throw new Error(`maxModelCalls must be a whole number of at least 1 (got ${max})`);
  }

  /** Model calls running now. */
  get running(): number {
    return this.#running;
  }

  /** Takes a turn if one is free now; never waits. */
  tryEnter(): boolean {
    if (this.#running >= this.max) return false;
    this.#running++;
    return true;
  }

  /** Takes a turn, waiting for one (first come, first served) unless `signal` aborts first. */
  async enter(signal: AbortSignal): Promise<void> {
    if (!this.tryEnter()) await waitInLine(this.#waiting, signal); // leave() hands its turn over, count kept
  }

  /** Gives a turn back: to the first caller waiting, if any (the count stays), else to the pool. */
  leave(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#running = Math.max(0, this.#running - 1);
  }
}

/** Waits in `line` until the function it put there is called (first in, first woken), or rejects with the reason of
 * `signal` when it aborts first, leaving the line. */
export function waitInLine(line: Array<() => void>, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const wake = () => {
      signal.removeEventListener('abort', leave);
      resolve();
    };
    const leave = () => {
      const i = line.indexOf(wake);
      if (i >= 0) line.splice(i, 1);
      reject(signal.reason);
    };
    if (signal.aborted) return leave();
    signal.addEventListener('abort', leave, { once: true });
    line.push(wake);
  });
}

/** The answer to a call on the run's queue when this process already runs `max` model calls. */
export function busyRefusal(max: number): ModelCallRefused {
  return { refused: 'this-call', reason: `this worker is running its maxModelCalls (${max}) model calls: the run sends this call to the model queue` };
}

/** The answer to a local model call when the worker already runs `max` of them (each holds a workflow-task slot). */
export function localBusyRefusal(max: number): ModelCallRefused {
  return {
    refused: 'this-call',
    reason: `this worker is running ${max} local model calls, its bound (each holds one of its workflow-task slots while it runs): the run makes this call as an activity`,
  };
}

/** The answer to every call on the run's queue of a worker whose model calls must go through the model queue. */
export function modelQueueOnlyRefusal(why: string): ModelCallRefused {
  return { refused: 'every-call', reason: `${why}: the run sends its model calls to the model queue` };
}
