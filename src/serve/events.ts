// The live event stream of a run: one poller per run, whatever the number of subscribers. It reads what adds
// nothing to the run's history (the status query or the history, the transcript, the server's description of
// the model call in flight) and turns it into the events of src/core/run-events.ts, kept in order in memory so
// a subscriber that reconnects with Last-Event-ID gets exactly what it missed.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import { getStatus, getTranscript } from '../client/index.js';
import { compareEventIds, eventId, isTerminal, messageEvents, streamedDelta, type RunEvent } from '../core/run-events.js';

/** How long a run's feed outlives its last subscriber, so a reconnect within it is exact. */
const LINGER_MS = 30_000;

type Listener = (event: RunEvent) => void;
/** Called once the feed has sent its last event (its `end`, whether or not this subscriber was sent it), or stopped. */
type Done = () => void;

export class EventHub {
  readonly #feeds = new Map<string, RunFeed>();

  /** `intervalMs`: how often a run with subscribers is read. */
  constructor(
    private readonly client: Client,
    private readonly intervalMs = 300,
  ) {}

  /** Replays the events after `afterId` (all without one), then calls `listener` with each new one. Returns
   * the unsubscribe function. */
  subscribe(workflowId: string, afterId: string | undefined, listener: Listener, done: Done = () => {}): () => void {
    let feed = this.#feeds.get(workflowId);
    if (!feed) {
      feed = new RunFeed(this.client, workflowId, this.intervalMs, () => this.#feeds.delete(workflowId));
      this.#feeds.set(workflowId, feed);
    }
    return feed.add(afterId, listener, done);
  }

  /** The runs being polled now, and how many reads each has made (one poller per run, not per subscriber). */
  stats(): Array<{ workflowId: string; subscribers: number; polls: number; events: number }> {
    return [...this.#feeds.values()].map((f) => ({ workflowId: f.workflowId, subscribers: f.subscribers, polls: f.polls, events: f.events.length }));
  }

  /** Stops every feed; resolves once their reads in flight have ended (the client may be closed after it). */
  async close(): Promise<void> {
    const feeds = [...this.#feeds.values()];
    for (const feed of feeds) feed.stop(); // each leaves the hub
    await Promise.all(feeds.map((feed) => feed.loopEnded));
  }
}

class RunFeed {
  readonly events: RunEvent[] = [];
  readonly #listeners = new Map<Listener, Done>();
  polls = 0;
  #messages = 0;
  #transient = 0;
  #lastWords = new Map<string, string>();
  #approvals = new Set<string>();
  #children = new Set<string>();
  #guard: string | null = null;
  #ended = false;
  /** Aborted by stop: the loop ends at once, even while it waits for its next read. */
  readonly #stop = new AbortController();
  #linger: NodeJS.Timeout | undefined;
  #running = false;
  /** The poll loop, while it runs. */
  loopEnded: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: Client,
    readonly workflowId: string,
    private readonly intervalMs: number,
    private readonly onStop: () => void,
  ) {}

  get subscribers(): number {
    return this.#listeners.size;
  }

  add(afterId: string | undefined, listener: Listener, done: Done): () => void {
    // After `afterId` only, replayed or new: a feed started for this subscriber reads the transcript from the
    // beginning.
    const after: Listener = afterId === undefined ? listener : (e) => void (compareEventIds(e.id, afterId) > 0 && listener(e));
    for (const e of this.events) after(e);
    if (this.#ended || this.#stop.signal.aborted) {
      // The linger timer (if any) still runs: an ended feed nobody listens to must still leave the hub.
      done();
      return () => {};
    }
    clearTimeout(this.#linger);
    this.#listeners.set(after, done);
    if (!this.#running && !this.#ended) {
      this.#running = true;
      this.loopEnded = this.#loop();
    }
    return () => {
      this.#listeners.delete(after);
      if (this.#listeners.size === 0) {
        clearTimeout(this.#linger);
        this.#linger = setTimeout(() => this.stop(), this.#ended ? 5_000 : LINGER_MS);
        this.#linger.unref();
      }
    };
  }

  stop(): void {
    this.#stop.abort();
    for (const done of this.#listeners.values()) done();
    this.#listeners.clear();
    clearTimeout(this.#linger);
    this.onStop();
  }

  async #loop(): Promise<void> {
    while (!this.#stop.signal.aborted && !this.#ended) {
      try {
        await this.#poll();
      } catch {
        // A read that failed (a server blip, no worker yet): the next one tries again.
      }
      if (this.#ended || this.#stop.signal.aborted) break;
      await sleep(this.intervalMs, undefined, { signal: this.#stop.signal, ref: false }).catch(() => undefined);
    }
    this.#running = false;
  }

  #emit(event: RunEvent): void {
    this.events.push(event);
    for (const listener of this.#listeners.keys()) listener(event);
    if (event.event === 'end') for (const done of this.#listeners.values()) done();
  }

  #live(event: RunEvent['event'], data: Record<string, unknown>): void {
    this.#emit({ id: eventId([this.#messages, 0, this.#transient++]), event, data });
  }

  async #poll(): Promise<void> {
    this.polls++;
    const report = await getStatus(this.client, this.workflowId);
    const view = report.view;
    const execution = report.live ? 'RUNNING' : report.executionStatus;
    const closed = execution !== 'RUNNING';
    if (view && view.messages !== this.#messages) await this.#readTranscript();
    else if (!view && closed) await this.#readTranscript().catch(() => undefined);
    for (const call of report.modelCalls) {
      if (!call.progress) continue;
      const key = `${call.activityId}#${call.attempt}`;
      const delta = streamedDelta(this.#lastWords.get(key) ?? '', call.progress.lastWords);
      this.#lastWords.set(key, call.progress.lastWords);
      if (delta) this.#live('model_text', { delta, outputTokens: call.progress.outputTokens, producing: call.progress.producing });
    }
    for (const call of view?.pendingApprovals ?? []) {
      if (this.#approvals.has(call.toolUseId)) continue;
      this.#approvals.add(call.toolUseId);
      this.#live('approval_needed', { toolUseId: call.toolUseId, name: call.name, input: call.input });
    }
    for (const child of view?.children ?? []) {
      if (this.#children.has(child.workflowId)) continue;
      this.#children.add(child.workflowId);
      this.#live('child_started', { workflowId: child.workflowId, agent: child.agent, toolUseId: child.toolUseId });
    }
    if (view?.guard && view.guard !== this.#guard) {
      this.#guard = view.guard;
      this.#live('guard', { guard: view.guard, stopReason: view.stopReason });
    }
    if ((view && isTerminal(view)) || closed) {
      this.#ended = true;
      const status = view?.status ?? execution.toLowerCase();
      this.#emit({
        id: eventId([this.#messages, 2, 0]),
        event: 'end',
        data: view
          ? { status, steps: view.steps, toolCalls: view.toolCalls, usage: view.usage, costUsd: view.costUsd, guard: view.guard, text: view.lastText }
          : { status },
      });
    }
  }

  async #readTranscript(): Promise<void> {
    const messages = await getTranscript(this.client, this.workflowId);
    if (messages.length < this.#messages) {
      this.#messages = messages.length; // not expected (the transcript only grows): start counting from here
      return;
    }
    for (let i = this.#messages; i < messages.length; i++) {
      if (i === this.#messages) this.#transient = 0;
      for (const event of messageEvents(messages[i], i)) this.#emit(event);
      this.#messages = i + 1;
      this.#transient = 0;
      this.#lastWords.clear();
    }
  }
}
