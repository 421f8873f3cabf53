// The model activity's transcript cache: what it serves from memory, what it reads by query.
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

function store() {
  const calls: Array<[number, number]> = [];
  const s = new TranscriptStore(async (_ref, from, to) => {
    calls.push([from, to]);
    return { messages: transcript.slice(from, to), from, total: transcript.length };
  });
  return { s, calls };
}

const ref = (messageCount: number): TranscriptRef => ({ workflowId: 'wf', runId: 'run', messageCount });

describe('TranscriptStore', () => {
  it('reads only what is new on each call: the prefix it was asked with before comes from memory', async () => {
    const { s, calls } = store();
    expect(await s.read(ref(1))).toEqual(transcript.slice(0, 1));
    expect(await s.read(ref(3))).toEqual(transcript.slice(0, 3));
    expect(await s.read(ref(5))).toEqual(transcript);
    expect(calls).toEqual([
      [0, 1],
      [1, 3],
      [3, 5],
    ]);
    expect(s.stats).toEqual({ cacheHits: 0, queries: 3, queriedMessages: 5 });
  });

  it('serves a repeated request (a retried call) from memory without a query', async () => {
    const { s, calls } = store();
    await s.read(ref(3));
    expect(await s.read(ref(3))).toEqual(transcript.slice(0, 3));
    expect(calls).toHaveLength(1);
    expect(s.stats.cacheHits).toBe(1);
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
