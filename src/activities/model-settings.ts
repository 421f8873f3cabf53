// The model-call settings runs name by digest (src/core/model-settings.ts), for the model activity: from this
// worker's cache, which the workflow fills through the transcript sink just before each model call, else from the
// run with the `modelSettings` query (not recorded in history). Keyed by content, the cache can never serve other
// settings than the ones a call names, whichever run or worker put them there.
import type { DigestedSettings, ModelCallSettings } from '../core/model-settings.js';

export type ReadModelSettings = (run: { workflowId: string; runId: string }, digest: string) => Promise<DigestedSettings | null>;

export class ModelSettingsStore {
  readonly stats = { cacheHits: 0, queries: 0 };
  readonly #byDigest = new Map<string, ModelCallSettings>();

  constructor(
    private readonly query: ReadModelSettings,
    private readonly maxEntries = 256,
  ) {}

  /** Handed over by a workflow on this worker (the sink). */
  remember(digest: string, settings: ModelCallSettings): void {
    this.#byDigest.delete(digest);
    this.#byDigest.set(digest, settings);
    while (this.#byDigest.size > this.maxEntries) this.#byDigest.delete(this.#byDigest.keys().next().value!);
  }

  async read(digest: string, run: { workflowId: string; runId: string }): Promise<ModelCallSettings> {
    const cached = this.#byDigest.get(digest);
    if (cached) {
      this.stats.cacheHits++;
      this.remember(digest, cached);
      return cached;
    }
    this.stats.queries++;
    const answer = await this.query(run, digest);
    if (!answer || answer.digest !== digest) {
      // A bug rather than bad luck: the digest came from that run, which answers with what it named.
      throw new Error(`run ${run.workflowId} has no model-call settings ${digest}`);
    }
    this.remember(digest, answer.settings);
    return answer.settings;
  }

  clear(): void {
    this.#byDigest.clear();
  }
}
