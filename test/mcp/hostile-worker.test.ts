// Hostile MCP servers through a real worker (real dev server, the scripted model behind the real Anthropic SDK):
// one bad server or schema must not stall the other runs on the worker, and a hung server is recycled between
// attempts.
import type { temporal } from '@temporalio/proto';
import { describe, expect, it, vi } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import type { MessagesRequestBody } from '../../src/scripted/script.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { lastToolResults, startRun, useTestEnv, withAgent } from '../helpers/harness.js';
import { stateDir, stdioFixture } from '../helpers/mcp.js';
import { watchNativeRegExp } from '../helpers/native-regexp.js';

const env = useTestEnv();

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const millis = (t: HistoryEvent['eventTime']) => Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);

/** How long each of a run's turns took, model call and tool call: from its first model call's scheduling to its first
 * tool call's completion, then from each tool call's completion to the next one's (tens of ms on a free worker).
 * Scheduled to completed alone would not show a frozen worker: it schedules nothing while frozen. */
async function turnTimes(workflowId: string): Promise<number[]> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const typeOf = new Map(events.flatMap((e) => (e.activityTaskScheduledEventAttributes ? [[Number(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name]] : [])));
  const firstModelCall = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel');
  const toolDone = events
    .filter((e) => typeOf.get(Number(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? -1)) === 'runTool')
    .map((e) => millis(e.eventTime));
  return toolDone.map((t, i) => t - (i === 0 ? millis(firstModelCall?.eventTime) : toolDone[i - 1]));
}

/** Which run a request is from: its task (the first message, a string or blocks). */
const isHostile = (body: unknown) => JSON.stringify((body as MessagesRequestBody).messages[0].content).includes('hostile:');

// 28 a's and a "!": seconds of backtracking per check on JavaScript's own engine (the probe's 32 took 371 s). Each
// turn's arguments differ (more "!"), or the repetition guard would step in.
const hostile = (turn: number) => `${'a'.repeat(28)}${'!'.repeat(turn + 1)}`;

describe('a hostile input schema', () => {
  it("does not hold up the worker: the hostile calls are checked without JavaScript's backtracking engine ever running the pattern, while another run's tool calls complete", async () => {
    const script: Script = (body, turn) => {
      if (isHostile(body)) {
        // A valid call beside each hostile one, so the error-streak guard does not stop the run.
        return turn < 3 ? reply([toolUse('fx__match', { s: hostile(turn) }), toolUse('fx__match', { s: 'a'.repeat(turn + 1) })]) : reply([text('refused')]);
      }
      return turn < 10 ? reply([toolUse('calculator', { expression: `${turn} + 1` })]) : reply([text('counted')]);
    };
    // What would hold the worker up is the pattern on a backtracking engine (seconds per check): which engine ran it is
    // what is asserted, not how long the turns took (printed as a figure).
    const native = watchNativeRegExp();
    await withAgent(env, { script, mcpServers: { fx: stdioFixture({ args: ['--hostile-schema'] }) } }, async (h) => {
      // The bystander first, warm (its first tool call done), then the hostile run beside it.
      const bystander = await startRun(h, 'bystander: count', { tools: ['calculator'] });
      await vi.waitFor(() => expect(h.model.requests.filter((r) => !isHostile(r.body)).length).toBeGreaterThanOrEqual(2), { timeout: 20_000 });
      const hostile = await startRun(h, 'hostile: match these', { tools: ['fx__*'] });
      const [hostileResult, bystanderResult] = await Promise.all([getAgentResult(env.client, hostile), getAgentResult(env.client, bystander)]);
      expect(hostileResult).toMatchObject({ status: 'completed', text: 'refused', toolCalls: 6 });
      expect(bystanderResult).toMatchObject({ status: 'completed', text: 'counted', toolCalls: 10 });

      const hostileRequests = h.model.requests.filter((r) => isHostile(r.body));
      const [refused, matched] = lastToolResults(hostileRequests);
      expect(refused).toMatchObject({ is_error: true, content: 'Invalid input for tool "fx__match": /s must match pattern "^(a+)+$"' });
      expect(matched).toMatchObject({ content: 'matched aaa' }); // the third turn's
      const [, ...bystanderTurns] = await turnTimes(bystander); // after its warm-up turn
      expect(bystanderTurns).toHaveLength(9);
      console.log(`hostile schema: bystander turns ${bystanderTurns.join(', ')} ms; hostile turns ${(await turnTimes(hostile)).join(', ')} ms`);
    }).finally(() => native.restore());
    expect(native.sources.has('^(a+)+$')).toBe(false);
  });
});

describe('a hung MCP server', () => {
  it('is restarted after the call that timed out: the retry succeeds on a fresh process', async () => {
    const state = stateDir();
    const script: Script = [reply([toolUse('fx__hang', {})]), reply([text('answered')])];
    try {
      const server = { ...stdioFixture({ args: ['--misbehave', '--hang-first'], stateDir: state.dir }), callTimeout: '2s' };
      await withAgent(env, { script, mcpServers: { fx: server } }, async (h) => {
        const id = await startRun(h, 'call the hanging tool', { tools: ['fx__*'], heartbeatTimeoutMs: 1500 });
        expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'answered' });
        const hungPid = Number(state.read('hung'));
        expect(hungPid).toBeGreaterThan(0);
        const [result] = lastToolResults(h.model.requests);
        expect(result.is_error).toBeUndefined();
        const answeredBy = Number(/^answered by (\d+)$/.exec(result.content as string)?.[1]);
        expect(answeredBy).toBeGreaterThan(0);
        expect(answeredBy).not.toBe(hungPid);
        // At least one restart. A loaded machine can add one: the attempt's heartbeats late past its 1.5 s timeout, the
        // server retries it while the first still hangs, and that one's cancellation restarts the session again.
        expect(h.agent.mcp!.session('fx')!.connects).toBeGreaterThanOrEqual(2);
      });
    } finally {
      state.remove();
    }
  });

  it('that never answers gets each attempt on a fresh process, and the model an error naming the server and what happened', async () => {
    const state = stateDir();
    const script: Script = [reply([toolUse('fx__hang', {})]), reply([text('gave up')])];
    try {
      // The call gives up a tenth of its timeout before Temporal's start-to-close would end the attempt (at most 1 s):
      // with 2 s that was 200 ms, which a loaded machine ate between the attempt's start and the tool's first step, so
      // Temporal's timeout came first and the model read "timed out" instead of the server's name. 5 s leaves 500 ms.
      const server = { ...stdioFixture({ args: ['--misbehave', '--hang-always'], stateDir: state.dir }), callTimeout: '5s' };
      await withAgent(env, { script, mcpServers: { fx: server } }, async (h) => {
        const id = await startRun(h, 'call the hanging tool', { tools: ['fx__*'] });
        expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'gave up' });
        const [result] = lastToolResults(h.model.requests);
        expect(result).toMatchObject({
          is_error: true,
          content: 'Tool "fx__hang" failed: MCP server "fx" did not answer "hang" before the call\'s timeout; its session and process were restarted',
        });
        const pids = state.read('hung.log')!.trim().split('\n');
        expect(pids).toHaveLength(3);
        expect(new Set(pids).size).toBe(3);
      });
    } finally {
      state.remove();
    }
  });
});
