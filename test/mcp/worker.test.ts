// MCP servers through a real worker: real fixture servers over stdio, the real dev server, the scripted
// model reached through the real Anthropic SDK.
import { randomUUID } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { cancelRun, getAgentResult, closeChatRun, sendFollowUp, getStatus } from '../../src/client/index.js';
import type { MessagesRequestBody } from '../../src/scripted/script.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { eventually, lastToolResults, startRun, useSharedAgent, useTestEnv, withAgent } from '../helpers/harness.js';
import { decodedPayloads, isAlive, stateDir, stdioFixture } from '../helpers/mcp.js';

const env = useTestEnv();
// One worker, its server `fx` reconnecting for 1 s, for the tests that need neither a state directory of their own nor
// to stop the worker: the content-mapping test, then the one whose server keeps crashing (which leaves it down).
const agents = useSharedAgent(env, { mcpServers: { fx: { ...stdioFixture(), reconnectFor: '1s' } } });

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const toolNames = (body: unknown) => ((body as MessagesRequestBody).tools ?? []).map((t) => (t as { name: string }).name);

async function activityEvents(workflowId: string) {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const scheduled = events
    .filter((e: HistoryEvent) => e.activityTaskScheduledEventAttributes)
    .map((e: HistoryEvent) => ({
      type: e.activityTaskScheduledEventAttributes!.activityType!.name!,
      summary: e.userMetadata?.summary?.data ? JSON.parse(Buffer.from(e.userMetadata.summary.data).toString()) : undefined,
    }));
  const attempts = events.filter((e: HistoryEvent) => e.activityTaskStartedEventAttributes).map((e: HistoryEvent) => e.activityTaskStartedEventAttributes!.attempt ?? 0);
  return { scheduled, attempts, payloads: decodedPayloads(history) };
}

describe('MCP tools in a run (stdio)', () => {
  it('records the definitions once at the start, offers them as <server>__<tool>, and calls the tool with its idempotency key', async () => {
    const state = stateDir();
    const script: Script = [reply([toolUse('fx__echo', { text: 'hello' })]), reply([text('done')])];
    let pid = 0;
    try {
      await withAgent(env, { script, mcpServers: { fx: stdioFixture({ stateDir: state.dir }) } }, async (h) => {
        pid = h.agent.mcp!.session('fx')!.pid!;
        const id = await startRun(h, 'use the echo tool', { tools: ['calculator', 'fx__*'] });
        const result = await getAgentResult(env.client, id);
        expect(result).toMatchObject({ status: 'completed', text: 'done', toolCalls: 1 });

        // Both model calls offered the same list: the local tool, then the server's tools, prefixed.
        const offered = h.model.requests.map((r) => toolNames(r.body));
        expect(offered).toHaveLength(2);
        expect(offered[0]).toEqual(['calculator', 'fx__echo', 'fx__fail', 'fx__image', 'fx__resource', 'fx__slow', 'fx__crash', 'fx__progress']);
        expect(offered[1]).toEqual(offered[0]);

        const [toolResult] = lastToolResults(h.model.requests);
        expect(toolResult.is_error).toBeUndefined();
        expect(JSON.parse(toolResult.content as string)).toEqual({ echo: 'hello', idempotencyKey: `${id}/${toolResult.tool_use_id}` });

        const { scheduled, payloads } = await activityEvents(id);
        expect(scheduled.map((s) => s.type)).toEqual(['describeTools', 'callModel', 'runTool', 'callModel']);
        expect(scheduled[0].summary).toBe('describe tools: fx__*');
        expect(scheduled[2].summary).toBe('fx__echo("hello")');
        // History grows linearly: a tool's description is in history once (the describeTools result), not in
        // every model call's input.
        expect(payloads.split('Echoes the text').length - 1).toBe(1);
        // The worker's own describeTools result fed its model calls: no query was needed.
        expect(h.agent.recordedTools.stats).toEqual({ cacheHits: 2, queries: 0 });
      });
      // The worker has stopped: so has the server it spawned.
      expect(pid).toBeGreaterThan(0);
      await expect.poll(() => isAlive(pid), { timeout: 10_000 }).toBe(false);
    } finally {
      state.remove();
    }
  });

  it('maps isError to an is_error result, and image and resource content to the blocks the API takes', async () => {
    const script: Script = [
      reply([toolUse('fx__fail', { reason: 'disk full' }), toolUse('fx__image', {}), toolUse('fx__resource', {})]),
      reply([text('seen')]),
    ];
    await agents.with({ script }, async (h) => {
      const id = await startRun(h, 'try the tools', { tools: ['fx__fail', 'fx__image', 'fx__resource'] });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', toolCalls: 3 });
      // Only the named tools were offered.
      expect(toolNames(h.model.requests[0].body)).toEqual(['fx__fail', 'fx__image', 'fx__resource']);
      const [failed, image, resource] = lastToolResults(h.model.requests);
      expect(failed).toMatchObject({ is_error: true, content: 'cannot do that: disk full' });
      expect(image.is_error).toBeUndefined();
      expect(image.content).toEqual([
        { type: 'text', text: 'a red pixel' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: expect.stringMatching(/^iVBOR/) } },
      ]);
      expect(resource.content).toEqual([
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'buy milk' }, title: 'file:///notes/todo.txt' },
      ]);
      // The scripted model checks tool_result content as the API does: all of it was accepted.
      expect(h.model.requests.every((r) => r.status === 200)).toBe(true);
    });
  });

  it('calls again, on a new server process and with the same idempotency key, when the server was killed mid-call: within the attempt', async () => {
    const state = stateDir();
    const script: Script = [reply([toolUse('fx__slow', { ms: 1500 })]), reply([text('finished')])];
    try {
      await withAgent(env, { script, mcpServers: { fx: stdioFixture({ stateDir: state.dir }) } }, async (h) => {
        const id = await startRun(h, 'wait a bit', { tools: ['fx__*'] });
        const firstPid = Number(await eventually(async () => state.read('started-slow'), (v) => v !== null, 20_000));
        process.kill(firstPid, 'SIGKILL');
        const result = await getAgentResult(env.client, id);
        expect(result).toMatchObject({ status: 'completed', text: 'finished' });
        const [toolResult] = lastToolResults(h.model.requests);
        expect(toolResult).toMatchObject({ content: 'waited 1500 ms' });

        const calls = state.calls().filter((c) => c.tool === 'slow');
        expect(calls).toHaveLength(2);
        expect(calls[0].pid).toBe(firstPid);
        expect(calls[1].pid).not.toBe(firstPid);
        expect(calls[1].key).toBe(calls[0].key);
        expect(calls[0].key).toBe(`${id}/${toolResult.tool_use_id}`);
        expect(h.agent.mcp!.session('fx')!.connects).toBe(2);
        // Reconnecting rode the outage out inside the first attempt: none of the tool's own attempts was spent.
        const { attempts } = await activityEvents(id);
        expect(Math.max(...attempts)).toBe(1);
      });
    } finally {
      state.remove();
    }
  });

  it('answers with an is_error result naming the server once a server that keeps crashing has used up its reconnects and the retries', async () => {
    const script: Script = [reply([toolUse('fx__crash', {})]), reply([text('it failed')])];
    await agents.with({ script }, async (h) => {
      const id = await startRun(h, 'crash it', { tools: ['fx__*'] });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'it failed' });
      const [toolResult] = lastToolResults(h.model.requests);
      expect(toolResult.is_error).toBe(true);
      expect(toolResult.content).toMatch(/^Tool "fx__crash" failed: MCP server "fx" is unavailable: /);
      const { attempts } = await activityEvents(id);
      expect(Math.max(...attempts)).toBe(3);
    });
  });

  it('cancelling the run cancels the MCP request on the server', async () => {
    const state = stateDir();
    const script: Script = [reply([toolUse('fx__slow', { ms: 120_000 })]), reply([text('never')])];
    try {
      await withAgent(env, { script, mcpServers: { fx: stdioFixture({ stateDir: state.dir }) } }, async (h) => {
        const id = await startRun(h, 'wait forever', { tools: ['fx__*'], heartbeatTimeoutMs: 3000 });
        await eventually(async () => state.read('started-slow'), (v) => v !== null, 20_000);
        await cancelRun(env.client, id);
        expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'cancelled' });
        await eventually(async () => state.read('cancelled-slow'), (v) => v !== null, 20_000);
      });
    } finally {
      state.remove();
    }
  });

  it('keeps the definitions recorded at the start when a later model call runs on a worker whose server changed', async () => {
    const taskQueue = `test-${randomUUID()}`;
    const script: Script = (req: MessagesRequestBody, turn: number) => (turn === 0 ? reply([text('hello')]) : reply([text('still here')]));
    let id = '';
    let firstOffer: string[] = [];
    await withAgent(env, { script, taskQueue, mcpServers: { fx: stdioFixture() } }, async (h) => {
      id = await startRun(h, 'chat', { tools: ['fx__*'], chat: true });
      await eventually(() => getStatus(env.client, id), (s) => s.live && s.view.waitingForMessage, 20_000);
      firstOffer = toolNames(h.model.requests[0].body);
    });
    // A fresh worker, whose server now has one more tool: the run still offers what it recorded.
    await withAgent(env, { script, taskQueue, mcpServers: { fx: stdioFixture({ args: ['--extra-tool'] }) } }, async (h) => {
      expect(h.agent.mcp!.toolNames()).toContain('fx__extra');
      expect(firstOffer).not.toContain('fx__extra');
      await sendFollowUp(env.client, id, 'and now?');
      await eventually(() => getStatus(env.client, id), (s) => s.live && s.view.steps === 2 && s.view.waitingForMessage, 20_000);
      await closeChatRun(env.client, id);
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'still here' });
      expect(toolNames(h.model.requests[0].body)).toEqual(firstOffer);
      expect(h.agent.recordedTools.stats.queries).toBe(1);
    });
  });
});
