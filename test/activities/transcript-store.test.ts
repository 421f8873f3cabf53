// The model activity's transcript cache: what the workflow shares into it, what it serves from memory, what it
// reads by query.
import { describe, expect, it } from 'vitest';
import { TranscriptStore } from '../../src/activities/transcript-store.js';
import type { MessageParam, TranscriptRef } from '../../src/core/types.js';

const transcript: MessageParam[] = [
  { role: 'user', content: 'task' },
  { role: 'assistant', content: [{ type: 'text', text: 'recorded reply' }] } as MessageParam,
  { role: 'user', content: 'results' },
  { role: 'assistant', content: [{ type: 'text', text: 'second reply' }] } as MessageParam,
  { role: 'user', content: 'more results' },
];

function store(options: ConstructorParameters<typeof TranscriptStore>[1] = {}) {
  const calls: Array<[number, number]> = [];
  const s = new TranscriptStore(async (_ref, from, to) => {
    calls.push([from, to]);
    return { messages: transcript.slice(from, to), from, total: transcript.length };
  }, options);
  return { s, calls };
}

const run = { workflowId: 'wf', runId: 'run' };
const ref = (messageCount: number, runId = 'run'): TranscriptRef => ({ workflowId: 'wf', runId, messageCount });

describe('TranscriptStore', () => {
  it('serves every call from what the workflow shared, without a query', async () => {
    const { s, calls } = store();
    s.share(run, 0, transcript.slice(0, 1));
    expect(await s.read(ref(1))).toEqual(transcript.slice(0, 1));
    s.share(run, 1, transcript.slice(1, 3));
    expect(await s.read(ref(3))).toEqual(transcript.slice(0, 3));
    s.share(run, 3, transcript.slice(3, 5));
    expect(await s.read(ref(5))).toEqual(transcript);
    expect(calls).toEqual([]);
    expect(s.stats).toEqual({ cacheHits: 3, sharedMessages: 5, queries: 0, queriedMessages: 0, queryRetries: 0 });
  });

  it('keeps messages shared twice once (a workflow replayed after a cache eviction shares from the start)', async () => {
    const { s } = store();
    s.share(run, 0, transcript.slice(0, 3));
    s.share(run, 0, transcript.slice(0, 5));
    expect(await s.read(ref(5))).toEqual(transcript);
    expect(s.stats.sharedMessages).toBe(5);
  });

  it('does not keep shared messages that would leave a gap: the call queries the whole transcript', async () => {
    const { s, calls } = store();
    s.share(run, 3, transcript.slice(3, 5)); // the first three were dropped meanwhile
    expect(await s.read(ref(5))).toEqual(transcript);
    expect(calls).toEqual([[0, 5]]);
    expect(s.stats.sharedMessages).toBe(0);
  });

  it('reads only what is missing by query: the prefix it has comes from memory', async () => {
    const { s, calls } = store();
    s.share(run, 0, transcript.slice(0, 3));
    expect(await s.read(ref(5))).toEqual(transcript);
    expect(calls).toEqual([[3, 5]]);
    expect(s.stats).toMatchObject({ cacheHits: 0, queries: 1, queriedMessages: 2 });
  });

  it('serves a repeated request (a retried call) from memory without a query', async () => {
    const { s, calls } = store();
    await s.read(ref(3));
    expect(await s.read(ref(3))).toEqual(transcript.slice(0, 3));
    expect(calls).toHaveLength(1);
    expect(s.stats.cacheHits).toBe(1);
  });

  it('forgets a run that ended: a later call (a query replaying the closed run) reads it again', async () => {
    const { s, calls } = store();
    s.share(run, 0, transcript);
    s.forget(run);
    expect(await s.read(ref(5))).toEqual(transcript);
    expect(calls).toEqual([[0, 5]]);
  });

  it('stays within its byte bound by dropping the least recently used run, never the one in use', async () => {
    const size = (ms: MessageParam[]) => ms.reduce((n, m) => n + JSON.stringify(m).length, 0);
    const { s, calls } = store({ maxBytes: size(transcript) + 10 });
    s.share({ workflowId: 'wf', runId: 'a' }, 0, transcript);
    s.share({ workflowId: 'wf', runId: 'b' }, 0, transcript); // over the bound: run a goes
    expect(await s.read(ref(5, 'b'))).toEqual(transcript);
    expect(calls).toEqual([]);
    expect(await s.read(ref(5, 'a'))).toEqual(transcript); // read back by query; now b goes
    expect(calls).toEqual([[0, 5]]);
    await s.read(ref(5, 'b'));
    expect(calls).toEqual([[0, 5], [0, 5]]);
    // One run alone over the bound is still kept while it is in use.
    const tiny = store({ maxBytes: 1 });
    tiny.s.share(run, 0, transcript);
    expect(await tiny.s.read(ref(5))).toEqual(transcript);
    expect(tiny.calls).toEqual([]);
  });

  it('asks again for a page whose query failed under load, then fails with the last error', async () => {
    let failures = 2;
    const s = new TranscriptStore(
      async (_ref, from, to) => {
        if (failures-- > 0) throw new Error('query task not found, or already expired');
        return { messages: transcript.slice(from, to), from, total: transcript.length };
      },
      { queryRetryDelaysMs: [1, 1] },
    );
    expect(await s.read(ref(5))).toEqual(transcript);
    expect(s.stats.queryRetries).toBe(2);
    failures = 3;
    await expect(s.read(ref(5, 'other'))).rejects.toThrow(/already expired/);
  });

  it('does not ask again when the run does not exist', async () => {
    let asked = 0;
    const notFound = Object.assign(new Error('workflow not found'), { name: 'WorkflowNotFoundError' });
    const s = new TranscriptStore(async () => {
      asked++;
      throw notFound;
    }, { queryRetryDelaysMs: [1, 1] });
    await expect(s.read(ref(5))).rejects.toThrow(/not found/);
    expect(asked).toBe(1);
  });

  it('after clear(), reads the whole prefix again, page by page until complete', async () => {
    let pages = 0;
    const s = new TranscriptStore(async (_ref, from, to) => {
      pages++;
      const end = Math.min(to, from + 2); // pages of two messages
      return { messages: transcript.slice(from, end), from, total: transcript.length };
    });
    await s.read(ref(5));
    s.clear();
    expect(await s.read(ref(5))).toEqual(transcript);
    expect(pages).toBe(6);
  });

  it('fails clearly when the workflow has fewer messages than the call expects', async () => {
    const s = new TranscriptStore(async (_ref, from) => ({ messages: [], from, total: 2 }));
    await expect(s.read(ref(4))).rejects.toThrow(/has 2 messages, but the model call expects 4/);
  });
});
