// Every model call streams: a long call is never cut while tokens flow, its words show in `status` while it
// runs (from the pending activity's heartbeat details), and a stream that breaks off or goes silent is retried
// as a whole call. Real dev server, real worker, the scripted model through the real SDK.
import type { Client } from '@temporalio/client';
import { decodeOptionalFailureToOptionalError } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { describe, expect, it } from 'vitest';
import { getAgentResult, getStatus, getTranscript } from '../../src/client/index.js';
import { formatStatus } from '../../src/cli/commands/status.js';
import { reply, text, toolUse, type ReplyTurn } from '../../src/scripted/index.js';
import { eventually, scheduledActivities, startRun, useSharedAgent, useTestEnv, withAgent } from '../helpers/harness.js';

const env = useTestEnv();
// One worker for the tests that need no model connection timeouts of their own.
const agents = useSharedAgent(env);

/** `word0 word1 ... word{n-1}`: words whose order shows which part of the reply was streamed. */
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

/** The attempt number and last failure of each model call's (final) attempt, from the run's history. */
async function modelCallAttempts(client: Client, workflowId: string): Promise<Array<{ attempt: number; lastFailure?: string }>> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const modelScheduled = new Set(
    events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel').map((e) => String(e.eventId)),
  );
  const started = events.filter(
    (e) => e.activityTaskStartedEventAttributes && modelScheduled.has(String(e.activityTaskStartedEventAttributes.scheduledEventId)),
  );
  return Promise.all(
    started.map(async (e) => {
      // Decoded through the client's converter: failure messages are encrypted in history.
      const failure = await decodeOptionalFailureToOptionalError(client.options.loadedDataConverter, e.activityTaskStartedEventAttributes!.lastFailure);
      return { attempt: e.activityTaskStartedEventAttributes!.attempt ?? 0, lastFailure: failure?.message };
    }),
  );
}

describe('streamed model calls', () => {
  it("shows a slow stream's words in status (heartbeat details of the pending call) while it runs", async () => {
    const answer = words(80);
    // About 28 events 200 ms apart (5.6 s); a 2 s heartbeat timeout records the details every 1.6 s at most, so the
    // server shows several beats while the reply streams.
    const slow: ReplyTurn = { ...reply([text(answer)]), eventDelayMs: 200 };
    await agents.with({ script: [slow] }, async (h) => {
      const workflowId = await startRun(h, 'say many words', { heartbeatTimeoutMs: 2000 });
      const first = await eventually(
        () => getStatus(env.client, workflowId),
        (r) => (r.modelCalls[0]?.progress?.lastWords ?? '') !== '',
        15_000,
      );
      const call = first.modelCalls[0];
      expect(call).toMatchObject({ attempt: 1, state: 'started' });
      expect(call.progress!.producing).toBe('text');
      expect(call.progress!.outputTokens).toBeGreaterThan(0);
      // The words are the beginning of the reply so far, not yet all of it.
      const seen = call.progress!.lastWords.replace(/^…/, '');
      expect(answer).toContain(seen);
      expect(answer.endsWith(seen)).toBe(false);
      expect(formatStatus(first, Date.now())).toContain(`"${call.progress!.lastWords}"`);
      // Later beats carry more of the reply.
      const later = await eventually(
        () => getStatus(env.client, workflowId),
        (r) => (r.modelCalls[0]?.progress?.outputTokens ?? 0) > call.progress!.outputTokens,
        15_000,
      );
      const laterSeen = later.modelCalls[0].progress!.lastWords.replace(/^…/, '');
      const endOf = (w: string) => answer.indexOf(w) + w.length;
      expect(answer).toContain(laterSeen);
      expect(endOf(laterSeen)).toBeGreaterThan(endOf(seen));

      const result = await getAgentResult(env.client, workflowId);
      expect(result).toMatchObject({ status: 'completed', text: answer, steps: 1 });
      expect((await getStatus(env.client, workflowId)).modelCalls).toEqual([]);
      expect(h.model.requests.map((r) => [r.stream, r.status])).toEqual([[true, 200]]);
    });
  }, 60_000);

  it('retries a stream cut mid-message as a whole call, and the transcript holds the whole reply once', async () => {
    const cutTurn: ReplyTurn = { ...reply([text('Let me compute.'), toolUse('calculator', { expression: '6*7' })]), cut: { afterEvents: 5 } };
    await agents.with({ script: [cutTurn, reply([text('The answer is 42.')])] }, async (h) => {
      const result = await h.run('what is 6*7?');
      expect(result).toMatchObject({ status: 'completed', text: 'The answer is 42.', steps: 2, toolCalls: 1 });
      expect(h.model.requests.map((r) => ({ turn: r.turn, status: r.status, cut: r.cutAfterEvents }))).toEqual([
        { turn: 0, status: 200, cut: 5 },
        { turn: 0, status: 200, cut: undefined },
        { turn: 1, status: 200, cut: undefined },
      ]);
      expect(await scheduledActivities(env.client, result.workflowId)).toEqual(['callModel', 'runTool', 'callModel']);
      const attempts = await modelCallAttempts(env.client, result.workflowId);
      expect(attempts[0].attempt).toBe(2);
      expect(attempts[0].lastFailure).toMatch(/stream broke off after \d+ events/);
      expect(await getTranscript(env.client, result.workflowId)).toEqual([
        { role: 'user', content: 'what is 6*7?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me compute.' },
            { type: 'tool_use', id: 'toolu_0_1', name: 'calculator', input: { expression: '6*7' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_0_1', content: '42' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'The answer is 42.' }] },
      ]);
    });
  }, 60_000);

  it('a "20-minute call": a stream longer than the SDK timeout and many heartbeat timeouts completes in one attempt', async () => {
    // Scaled down: a 2 s heartbeat timeout, a 1 s SDK timeout, and a reply that streams for about 10 s (68 events
    // 150 ms apart).
    const HEARTBEAT_TIMEOUT_MS = 2000;
    const answer = words(200);
    const slow: ReplyTurn = { ...reply([text(answer)]), eventDelayMs: 150 };
    await withAgent(env, { script: [slow], modelConnection: { timeoutMs: 1000 } }, async (h) => {
      const started = Date.now();
      const result = await h.run('a very long answer', { heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS });
      const took = Date.now() - started;
      expect(result).toMatchObject({ status: 'completed', text: answer, steps: 1 });
      expect(took).toBeGreaterThan(4 * HEARTBEAT_TIMEOUT_MS);
      expect(h.model.requests.map((r) => [r.status, r.cutAfterEvents])).toEqual([[200, undefined]]);
      expect(await modelCallAttempts(env.client, result.workflowId)).toEqual([{ attempt: 1, lastFailure: undefined }]);
    });
  }, 60_000);

  it('abandons a stream that goes silent for longer than the idle timeout and retries the call', async () => {
    let requests = 0;
    await withAgent(
      env,
      {
        // The first answer stalls for 3 s before each event; the retry streams at once.
        script: () => ({ ...reply([text('after a stall')]), eventDelayMs: requests++ === 0 ? 3000 : 0 }),
        modelConnection: { streamIdleTimeoutMs: 700 },
      },
      async (h) => {
        const result = await h.run('stall once');
        expect(result).toMatchObject({ status: 'completed', text: 'after a stall', steps: 1 });
        expect(h.model.requests.map((r) => r.status)).toEqual([499, 200]);
        const [call] = await modelCallAttempts(env.client, result.workflowId);
        expect(call.attempt).toBe(2);
        expect(call.lastFailure).toMatch(/sent nothing for 1 s after 0 events/);
      },
    );
  }, 60_000);
});
