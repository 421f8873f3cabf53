// A burst of triggers (an MCP server's `notifications/tools/list_changed`, 20,000 of them at once from a hostile
// one) runs the task at most twice: the run in flight, and one queued behind it that sees every trigger that came
// during the first. Pure: no I/O of its own.

export interface Coalesced {
  /** Asks for a run; resolves when a run that started after this call has finished. */
  trigger(): Promise<void>;
  /** Resolves when no run is in flight or queued. */
  idle(): Promise<void>;
}

/** `task` must handle its own errors (a failed run is forgotten; the next trigger runs it again). */
export function coalesced(task: () => Promise<void>): Coalesced {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const start = (): Promise<void> => {
    const run: Promise<void> = Promise.resolve()
      .then(task)
      .catch(() => undefined)
      .finally(() => {
        if (running === run) running = undefined;
      });
    running = run;
    return run;
  };
  return {
    trigger() {
      if (queued) return queued;
      if (!running) return start();
      const next = running.then(() => {
        queued = undefined;
        return start();
      });
      queued = next;
      return next;
    },
    async idle() {
      while (queued ?? running) await (queued ?? running);
    },
  };
}
