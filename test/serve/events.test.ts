// The event stream of a run (GET /v1/runs/{id}/events) with a real worker: order, resuming after a disconnect
// or on another server, one poller for 50 subscribers and nothing added to history, guards, streamed words.
import { setMaxListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { getStatus } from '../../src/client/index.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { useSharedAgent, useTestEnv } from '../helpers/harness.js';
import { readEvents, type SseEvent } from './sse.js';
import { auth, calc, call, openApi } from './api-helpers.js';

const env = useTestEnv();
// One worker for all the file's tests, with the researcher sub-agent one of them delegates to.
const agents = useSharedAgent(env, {
  agents: { researcher: { description: 'Researches one question.', system: 'You are the researcher.', tools: ['calculator'] } },
});

describe('the event stream', () => {
  it('the event stream delivers a run’s events in order and, after a disconnect, resumes from Last-Event-ID without losing or repeating one', async () => {
    await agents.with({ script: [calc('toolu_b'), reply([text('It is 4.')])] }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const started = await call(api, 'POST', '/v1/runs', { task: 'two plus two', tools: ['calculator'], approve: ['calculator'] });
        const id = started.json!.workflowId as string;
        const url = `${api.url}/v1/runs/${id}/events`;
        // First connection: dropped once the run waits for its approval.
        const first = await readEvents(url, auth(), (es) => es.some((e) => e.event === 'approval_needed'));
        expect((await call(api, 'POST', `/v1/runs/${id}/approvals/toolu_b`, { decision: 'approve' })).json).toEqual({ toolUseId: 'toolu_b', approved: true });
        const second = await readEvents(url, { ...auth(), 'last-event-id': first.at(-1)!.id });
        const seen = [...first, ...second];
        const ids = seen.map((e) => e.id);
        expect(new Set(ids).size).toBe(ids.length);
        const durable = (es: SseEvent[]) => es.filter((e) => e.event !== 'model_text').map((e) => `${e.event} ${e.id}`);
        expect(durable(seen)).toEqual([
          'step 1.1.0',
          'tool_call 1.1.2',
          'approval_needed 2.0.0',
          'tool_result 2.1.1',
          'step 3.1.0',
          'end 4.2.0',
        ]);
        expect(seen.at(-1)!.data).toMatchObject({ status: 'completed', text: 'It is 4.' });
        // A subscriber arriving after the end, on a server that never saw the run live, reads the same
        // transcript events with the same ids (what a reconnect after a server restart gets).
        const other = await openApi(env, h.taskQueue);
        const late = await readEvents(`${other.url}/v1/runs/${id}/events`, { ...auth(), 'last-event-id': '1.1.2' });
        // One past the end: nothing more to send, and the stream closes rather than hang.
        expect(await readEvents(`${other.url}/v1/runs/${id}/events`, { ...auth(), 'last-event-id': '999.0.0' }, () => false, 10_000)).toEqual([]);
        await other.close();
        expect(durable(late)).toEqual(['tool_result 2.1.1', 'step 3.1.0', 'end 4.2.0']);
      } finally {
        await api.close();
      }
    });
  });

  it('50 concurrent subscribers share one poller and add no event to the run’s history', async () => {
    await agents.with({ script: [calc('toolu_c'), reply([text('It is 4.')])] }, async (h) => {
      // Reads an hour apart: the feed reads the run once when its first subscriber comes, and not again in this test.
      const api = await openApi(env, h.taskQueue, undefined, 3_600_000);
      try {
        const started = await call(api, 'POST', '/v1/runs', { task: 'two plus two', tools: ['calculator'], approve: ['calculator'] });
        const id = started.json!.workflowId as string;
        // The run waits for its approval before anyone follows it: the feed's first read finds it there.
        await vi.waitFor(async () => expect((await getStatus(env.client, id)).view?.pendingApprovals).toHaveLength(1), { timeout: 30_000, interval: 50 });
        await readEvents(`${api.url}/v1/runs/${id}/events`, auth(), (es) => es.some((e) => e.event === 'approval_needed'));
        const handle = env.client.workflow.getHandle(id);
        const before = (await handle.describe()).historyLength;
        // Each reads until all 50 are on the one feed of the run and each has its events (a slow machine takes
        // seconds to connect them all).
        const allListening = new AbortController();
        setMaxListeners(50, allListening.signal); // one listener per reader
        const seen = new Set<number>();
        const reading = Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            readEvents(`${api.url}/v1/runs/${id}/events`, auth(), (es) => {
              if (es.some((e) => e.event === 'approval_needed')) seen.add(i);
              return false;
            }, 60_000, allListening.signal),
          ),
        );
        await vi.waitFor(() => expect(api.events.stats().map((f) => f.subscribers)).toEqual([50]), { timeout: 30_000, interval: 20 });
        await vi.waitFor(() => expect(seen.size).toBe(50), { timeout: 30_000, interval: 20 });
        allListening.abort();
        const streams = await reading;
        expect(streams.map((s) => s.some((e) => e.event === 'approval_needed'))).toEqual(Array(50).fill(true));
        const [feed] = api.events.stats();
        expect(api.events.stats()).toHaveLength(1);
        // The run was read once, by the feed, for the first subscriber: the 50 after it were served what it read
        // (a poller per subscriber would have read it 50 more times).
        expect(feed.polls).toBe(1);
        expect((await handle.describe()).historyLength).toBe(before);
        await call(api, 'POST', `/v1/runs/${id}/approvals/toolu_c`, { decision: 'approve' });
        expect((await call(api, 'GET', `/v1/runs/${id}/result?wait=30s`)).json).toMatchObject({ status: 'completed' });
      } finally {
        await api.close();
      }
    });
  });


  it('a guard that stops a run is an event before its end', async () => {
    await agents.with({ script: [calc('toolu_g'), reply([text('never reached')])] }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const id = (await call(api, 'POST', '/v1/runs', { task: 'two plus two', tools: ['calculator'], maxSteps: 1, summaryOn: [] })).json!.workflowId as string;
        const events = await readEvents(`${api.url}/v1/runs/${id}/events`, auth());
        expect(events.filter((e) => e.event === 'guard' || e.event === 'end').map((e) => [e.event, e.data.guard])).toEqual([
          ['guard', 'max_steps'],
          ['end', 'max_steps'],
        ]);
        expect(events.at(-1)!.data.status).toBe('stopped');
      } finally {
        await api.close();
      }
    });
  });

  it('the words a model call streams arrive as model_text events before the call ends', async () => {
    const words = 'The answer is coming word by word, and it keeps going for quite a while before it ends.';
    await agents.with({ script: [{ ...reply([text(words)]), holdAfterEvents: 8 }] }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const id = (await call(api, 'POST', '/v1/runs', { task: 'say it slowly', tools: ['calculator'] })).json!.workflowId as string;
        const early = await readEvents(`${api.url}/v1/runs/${id}/events`, auth(), (es) => es.some((e) => e.event === 'model_text'), 30_000);
        const streamed = early.filter((e) => e.event === 'model_text').map((e) => e.data.delta as string).join('');
        expect(words.startsWith(streamed) && streamed.length > 0).toBe(true);
        expect(early.some((e) => e.event === 'step')).toBe(false); // the call has not ended
        h.model.release();
        expect((await call(api, 'GET', `/v1/runs/${id}/result?wait=30s`)).json).toMatchObject({ status: 'completed', text: words });
      } finally {
        await api.close();
      }
    });
  });

  it('a sub-agent’s child run is a child_started event between its tool_call and its tool_result', async () => {
    const script = (req: { system?: unknown }, turn: number) => {
      const system = typeof req.system === 'string' ? req.system : '';
      // The child's answer waits for the test: the child is running when the stream is read.
      if (system.includes('researcher')) return { ...reply([text('42')]), hold: true };
      return turn === 0 ? reply([toolUse('agent__researcher', { task: 'what is 6*7?' }, 'toolu_child')]) : reply([text('It is 42.')]);
    };
    await agents.with({ script }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const id = await h.start('ask the researcher', { tools: ['agent__researcher'] });
        const url = `${api.url}/v1/runs/${id}/events`;
        const first = await readEvents(url, auth(), (es) => es.some((e) => e.event === 'child_started'), 30_000);
        h.model.release();
        const rest = await readEvents(url, { ...auth(), 'last-event-id': first.at(-1)!.id });
        const seen = [...first, ...rest].filter((e) => e.event !== 'model_text');
        expect(seen.map((e) => e.event)).toEqual(['step', 'tool_call', 'child_started', 'tool_result', 'step', 'end']);
        expect(seen[2].data).toEqual({ workflowId: `${id}/toolu_child`, agent: 'researcher', toolUseId: 'toolu_child' });
      } finally {
        await api.close();
      }
    });
  });
});
