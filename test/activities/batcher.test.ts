// The worker's batcher against the scripted Message Batches API: calls gathered over the window into one batch (one
// per set of betas), polls that share one status read and one download of the results, and a release that cancels a
// batch only when no run needs any of its requests.
import { afterEach, describe, expect, it } from 'vitest';
import { batcherFor, type ModelBatcher } from '../../src/activities/batcher.js';
import { reply, startScriptedModel, text, type Script, type ScriptedModel } from '../../src/scripted/index.js';

const servers: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(script: Script, windowMs = 100, limits?: Parameters<typeof batcherFor>[2]): Promise<{ model: ScriptedModel; batcher: ModelBatcher }> {
  const model = await startScriptedModel({ script });
  servers.push(model);
  return { model, batcher: batcherFor({ apiKey: 'x', baseURL: model.url }, { windowMs, pollMs: 50, maxPollMs: 100 }, limits) };
}

const params = (question: string) => ({ model: 'claude-test', max_tokens: 100, messages: [{ role: 'user' as const, content: question }] });

describe('the batcher', () => {
  it('gathers the calls of one window into one batch, and calls needing other betas into a batch of their own', async () => {
    const { model, batcher } = await start([reply([text('ok')])]);
    const ids = await Promise.all([
      batcher.submit('run-a-s1', params('a'), []),
      batcher.submit('run-b-s1', params('b'), []),
      batcher.submit('run-c-s1', params('c'), ['compact-2026-01-12']),
    ]);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(model.batches.map((b) => [b.requests.map((r) => r.customId), b.betas])).toEqual([
      [['run-a-s1', 'run-b-s1'], undefined],
      [['run-c-s1'], 'compact-2026-01-12'],
    ]);
    expect(batcher.stats).toMatchObject({ batchesCreated: 2, requestsSubmitted: 3 });
  });

  it('sends a gathering as soon as one more call would pass the API\'s limits on a batch (requests, bytes), that call opening the next', async () => {
    // The API refuses a batch past 100,000 requests or 256 MB whole: every run in it would fail. Here the limits are
    // made small: 3 requests, or 3 requests' worth of bytes.
    const one = Buffer.byteLength(JSON.stringify(params('a'.repeat(1_000)))) + 'run-0-s1'.length + 32;
    const byCount = await start([reply([text('ok')])], 100, { maxRequests: 3, maxBytes: 1e9 });
    const many = Array.from({ length: 7 }, (_, i) => `run-${i}-s1`);
    const ids = await Promise.all(many.map((id) => byCount.batcher.submit(id, params(id), [])));
    // (The creations go out together: the server may record them in any order.)
    const gathered = byCount.model.batches.map((b) => b.requests.map((r) => r.customId)).sort((a, b) => a[0].localeCompare(b[0]));
    expect(gathered).toEqual([many.slice(0, 3), many.slice(3, 6), many.slice(6)]);
    expect(new Set(ids).size).toBe(3);

    const bySize = await start([reply([text('ok')])], 100, { maxRequests: 100_000, maxBytes: 3 * one + 10 });
    await Promise.all(many.map((id) => bySize.batcher.submit(id, params('a'.repeat(1_000)), [])));
    expect(bySize.model.batches.map((b) => b.requests.length).sort()).toEqual([1, 3, 3]);
  });

  it('answers many polls of one batch with one status read and one download of its results', async () => {
    const { model, batcher } = await start([{ ...reply([text('ok')]), hold: true }]);
    const runs = Array.from({ length: 20 }, (_, i) => `run-${i}-s1`);
    const [batchId] = await Promise.all(runs.map((id) => batcher.submit(id, params(id), [])));
    const pending = await Promise.all(runs.map((id) => batcher.poll(batchId, id)));
    expect(pending.every((p) => p.status === 'pending')).toBe(true);
    expect(model.batches[0].statusReads).toBe(1);
    model.release();
    await new Promise((r) => setTimeout(r, 100)); // the status read above is shared for 25 ms at most
    let found = await Promise.all(runs.map((id) => batcher.poll(batchId, id)));
    while (found.some((p) => p.status === 'pending')) found = await Promise.all(runs.map((id) => batcher.poll(batchId, id)));
    expect(found.every((p) => p.status === 'ended' && p.result.type === 'succeeded')).toBe(true);
    expect(model.batches[0].resultDownloads).toBe(1);
  });

  it('cancels a batch once every run that has a request in it has released it, and one it does not know when it holds that request only', async () => {
    const { model, batcher } = await start([{ ...reply([text('ok')]), hold: true }]);
    const [batchId] = await Promise.all([batcher.submit('run-a-s1', params('a'), []), batcher.submit('run-b-s1', params('b'), [])]);
    expect(await batcher.release(batchId, 'run-a-s1')).toEqual({ canceled: false });
    expect(model.batches[0].canceled).toBe(false);
    expect(await batcher.release(batchId, 'run-b-s1')).toEqual({ canceled: true });
    expect(model.batches[0].canceled).toBe(true);
    // After a restart (a batcher that did not create them): a batch of one request is cancelled, one of two is not.
    const [single] = await Promise.all([batcher.submit('run-c-s1', params('c'), [])]);
    const [pair] = await Promise.all([batcher.submit('run-d-s1', params('d'), []), batcher.submit('run-e-s1', params('e'), [])]);
    const restarted = batcherFor({ apiKey: 'x', baseURL: model.url }, { pollMs: 50 });
    expect(await restarted.release(pair, 'run-d-s1')).toEqual({ canceled: false });
    expect(await restarted.release(single, 'run-c-s1')).toEqual({ canceled: true });
    model.release();
  });
});
