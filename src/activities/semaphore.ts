// Bounds how many model calls one worker makes at once (`worker --max-model-calls N`), so a fleet of agents
// stays under the provider's rate limits. Tool calls do not pass through it.
export class Semaphore {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`Semaphore size must be a whole number >= 1, got ${size}`);
    this.#free = size;
  }

  /** Waits for a slot; rejects if `signal` aborts first (the waiting call was cancelled). */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted(); // an 'abort' listener added after the abort would never fire
    if (this.#free > 0) {
      this.#free--;
      return this.#releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.#waiting.indexOf(wake);
        if (i >= 0) this.#waiting.splice(i, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(wake);
    });
    return this.#releaser();
  }

  get inUse(): number {
    return this.size - this.#free;
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // Hand the slot straight to the next waiter, so a newcomer cannot overtake it.
      if (next) next();
      else this.#free++;
    };
  }
}
