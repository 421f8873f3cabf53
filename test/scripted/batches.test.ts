// The scripted model's Message Batches API through the real SDK: create, retrieve, results as JSONL (in any order),
// cancel and list; each request answered as the same direct request would be, a held turn keeping its batch in
// progress, and the envelope checked as the API checks it.
import Anthropic, { BadRequestError, NotFoundError } from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, reply, startScriptedModel, text, type Script, type ScriptedModel } from '../../src/scripted/index.js';

const servers: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(script: Script): Promise<{ server: ScriptedModel; client: Anthropic }> {
  const server = await startScriptedModel({ script });
  servers.push(server);
  return { server, client: new Anthropic({ baseURL: server.url, apiKey: 'x', maxRetries: 0 }) };
}

const params = (question: string, assistantTurns = 0) => ({
  model: 'claude-test',
  max_tokens: 100,
  messages: [
    { role: 'user' as const, content: question },
    ...Array.from({ length: assistantTurns }, () => [
      { role: 'assistant' as const, content: 'earlier' },
      { role: 'user' as const, content: 'go on' },
    ]).flat(),
  ],
});

async function ended(client: Anthropic, id: string) {
  return vi.waitFor(async () => {
    const batch = await client.messages.batches.retrieve(id);
    expect(batch.processing_status).toBe('ended');
    return batch;
  });
}

describe('the scripted Message Batches API', () => {
  it('answers each request by its turn, as a direct request would be, and returns the results as JSONL in reverse order', async () => {
    const { server, client } = await start([reply([text('turn zero')]), apiError(529, 'overloaded_error', 'Overloaded')]);
    const created = await client.messages.batches.create({
      requests: [
        { custom_id: 'a', params: params('first') },
        { custom_id: 'b', params: params('second', 1) },
      ],
    });
    expect(created).toMatchObject({ type: 'message_batch', processing_status: 'in_progress', results_url: null });
    const batch = await ended(client, created.id);
    expect(batch.request_counts).toEqual({ processing: 0, succeeded: 1, errored: 1, canceled: 0, expired: 0 });
    const lines = [];
    for await (const line of await client.messages.batches.results(created.id)) lines.push(line);
    expect(lines.map((l) => l.custom_id)).toEqual(['b', 'a']);
    expect(lines[1].result.type === 'succeeded' && lines[1].result.message.content).toEqual([{ type: 'text', text: 'turn zero' }]);
    expect(lines[0].result).toMatchObject({ type: 'errored', error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
    expect(server.requests).toHaveLength(0);
    expect(server.batches[0].requests.map((r) => [r.customId, r.turn, r.result])).toEqual([
      ['a', 0, 'succeeded'],
      ['b', 1, 'errored'],
    ]);
    expect(server.batches[0].resultDownloads).toBe(1);
  });

  it('keeps a batch in progress while a request of it is held, and cancel ends it with that request canceled', async () => {
    const { server, client } = await start([{ ...reply([text('late')]), hold: true }]);
    const created = await client.messages.batches.create({ requests: [{ custom_id: 'held', params: params('wait') }] });
    await server.waitForHeld(1);
    expect((await client.messages.batches.retrieve(created.id)).processing_status).toBe('in_progress');
    const cancelled = await client.messages.batches.cancel(created.id);
    expect(cancelled.request_counts.canceled).toBe(1);
    expect((await client.messages.batches.list()).data.map((b) => b.id)).toEqual([created.id]);
    const lines = [];
    for await (const line of await client.messages.batches.results(created.id)) lines.push(line);
    expect(lines).toEqual([{ custom_id: 'held', result: { type: 'canceled' } }]);
    expect(server.batches[0].canceled).toBe(true);
  });

  it('refuses a batch without requests, a custom_id the API would refuse or repeat, and an unknown batch', async () => {
    const { client } = await start([reply([text('x')])]);
    await expect(client.messages.batches.create({ requests: [] })).rejects.toThrow(BadRequestError);
    await expect(client.messages.batches.create({ requests: [{ custom_id: 'has space', params: params('q') }] })).rejects.toThrow(/custom_id: must match/);
    await expect(
      client.messages.batches.create({ requests: [{ custom_id: 'x', params: params('q') }, { custom_id: 'x', params: params('q') }] }),
    ).rejects.toThrow(/is not unique in the batch/);
    await expect(client.messages.batches.retrieve('msgbatch_unknown')).rejects.toThrow(NotFoundError);
  });
});
