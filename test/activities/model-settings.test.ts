import { describe, expect, it } from 'vitest';
import { ModelSettingsStore } from '../../src/activities/model-settings.js';
import { digestSettings } from '../../src/core/model-settings.js';

const run = { workflowId: 'wf', runId: 'r1' };
const named = digestSettings({ model: 'm', maxOutputTokens: 10, tools: [], promptCaching: true, system: 'Be brief.' });

describe('ModelSettingsStore', () => {
  it('serves what a workflow handed over, without a query; a miss asks the run once and keeps the answer', async () => {
    const asked: string[] = [];
    const store = new ModelSettingsStore(async (_run, digest) => (asked.push(digest), digest === named.digest ? named : null));
    store.remember(named.digest, named.settings);
    expect(await store.read(named.digest, run)).toEqual(named.settings);
    store.clear();
    expect(await store.read(named.digest, run)).toEqual(named.settings);
    expect(await store.read(named.digest, run)).toEqual(named.settings);
    expect(store.stats).toEqual({ cacheHits: 2, queries: 1 });
    expect(asked).toEqual([named.digest]);
  });

  it('a run that does not know the digest is an error naming it, not other settings', async () => {
    const store = new ModelSettingsStore(async () => null);
    await expect(store.read('0'.repeat(32), run)).rejects.toThrow(/has no model-call settings 0{32}/);
  });

  it('is bounded: the least recently used digests go first', async () => {
    const store = new ModelSettingsStore(async () => null, 2);
    const [a, b, c] = ['a', 'b', 'c'].map((system) => digestSettings({ model: 'm', maxOutputTokens: 1, tools: [], promptCaching: true, system }));
    store.remember(a.digest, a.settings);
    store.remember(b.digest, b.settings);
    await store.read(a.digest, run); // a is now the most recently used
    store.remember(c.digest, c.settings);
    await expect(store.read(b.digest, run)).rejects.toThrow();
    expect(await store.read(a.digest, run)).toEqual(a.settings);
  });
});
