// The model-call settings runs name by digest (src/core/model-settings.ts), for the model activity: from this
// worker's cache, which the workflow fills through the transcript sink just before each model call, else from the
// run with the `modelSettings` query (not recorded in history). Keyed by content, the cache can never serve other
// settings than the ones a call names, whichever run or worker put them there.
import type { DigestedSettings, ModelCallSettings } from '../core/model-settings.js';
import { DigestCache } from './digest-cache.js';

export type ReadModelSettings = (run: { workflowId: string; runId: string }, digest: string) => Promise<DigestedSettings | null>;

export class ModelSettingsStore extends DigestCache<ModelCallSettings> {
  constructor(
    private readonly query: ReadModelSettings,
    maxEntries = 256,
  ) {
    super(maxEntries);
  }

  /** Handed over by a workflow on this worker (the sink). */
  remember(digest: string, settings: ModelCallSettings): void {
    this.keep(digest, settings);
  }

  read(digest: string, run: { workflowId: string; runId: string }): Promise<ModelCallSettings> {
    return this.cached(digest, async () => {
      const answer = await this.query(run, digest);
      if (!answer || answer.digest !== digest) {
        // A bug rather than bad luck: the digest came from that run, which answers with what it named.
        throw new Error(`run ${run.workflowId} has no model-call settings ${digest}`);
      }
      return answer.settings;
    });
  }
}
