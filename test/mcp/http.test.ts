// MCP servers over streamable HTTP through a real worker: the fixture server in a child process on 127.0.0.1
// and a free port, a bearer token read from the worker's environment, a server killed mid-call.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getAgentResult, getStatus } from '../../src/client/index.js';
import { connectMcpServers } from '../../src/mcp/tools.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import type { MessagesRequestBody } from '../../src/scripted/script.js';
import { eventMs, eventually, startRun, useTestEnv, withAgent } from '../helpers/harness.js';
import { decodedPayloads, startHttpFixture, stateDir, type HttpFixture } from '../helpers/mcp.js';

const env = useTestEnv();

const TOKEN_VAR = 'DURABLE_AGENT_TEST_MCP_TOKEN';
let fixtures: HttpFixture[] = [];
afterEach(async () => {
  delete process.env[TOKEN_VAR];
  await Promise.all(fixtures.map((f) => f.stop()));
  fixtures = [];
});

async function fixture(options: Parameters<typeof startHttpFixture>[0] = {}): Promise<HttpFixture> {
  const started = await startHttpFixture(options);
  fixtures.push(started);
  return started;
}

function lastToolResult(requests: Array<{ body: unknown }>) {
  const messages = (requests[requests.length - 1].body as MessagesRequestBody).messages;
  const content = messages[messages.length - 1].content as Array<{ type: string; content?: unknown; is_error?: boolean }>;
  return content.find((b) => b.type === 'tool_result')!;
}

const HEARTBEAT_TIMEOUT_MS = 1_500;

describe('MCP tools over streamable HTTP', () => {
  it('sends a header whose ${NAME} is read from the environment, and the secret never enters the history', async () => {
    const secret = `s3cret-${randomUUID()}`;
    const server = await fixture({ args: ['--auth-env', 'EXPECTED_TOKEN'], env: { EXPECTED_TOKEN: secret } });
    process.env[TOKEN_VAR] = secret;
    const mcpServers = { web: { url: server.url, headers: { Authorization: `Bearer \${${TOKEN_VAR}}` } } };
    const script: Script = [reply([toolUse('web__echo', { text: 'over http' })]), reply([text('done')])];
    await withAgent(env, { script, mcpServers }, async (h) => {
      const id = await startRun(h, 'echo over http', { tools: ['web__*'] });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'done' });
      expect(JSON.parse(lastToolResult(h.model.requests).content as string)).toMatchObject({ echo: 'over http' });
      const history = await env.client.workflow.getHandle(id).fetchHistory();
      const everything = JSON.stringify(history) + decodedPayloads(history);
      expect(everything).toContain('over http'); // the search can see payloads at all
      expect(everything).not.toContain(secret);
    });
  });

  it('refuses to start without the variable a header names, and a server that refuses the token', async () => {
    const server = await fixture({ args: ['--auth-env', 'EXPECTED_TOKEN'], env: { EXPECTED_TOKEN: 'right' } });
    const headers = { Authorization: `Bearer \${${TOKEN_VAR}}` };
    await expect(connectMcpServers({ web: { url: server.url, headers } }, { log: () => {} })).rejects.toThrow(
      `mcpServers.web.headers.Authorization refers to \${${TOKEN_VAR}}, but the environment variable ${TOKEN_VAR} is not set on this worker; set it`,
    );
    process.env[TOKEN_VAR] = 'wrong';
    await expect(connectMcpServers({ web: { url: server.url, headers } }, { log: () => {} })).rejects.toThrow(
      new RegExp(`^MCP server "web" \\(${server.url.replace(/[.]/g, '\\.')}\\) did not start: HTTP 401: .*check mcpServers\\.web\\.headers`),
    );
  });

  it('reconnects after the server is killed mid-call and started again, and the retried call answers', async () => {
    const state = stateDir();
    try {
      const first = await fixture({ env: { MCP_STATE_DIR: state.dir } });
      const script: Script = [reply([toolUse('web__slow', { ms: 1000 })]), reply([text('finished')])];
      await withAgent(env, { script, mcpServers: { web: { url: first.url } } }, async (h) => {
        const id = await startRun(h, 'wait over http', { tools: ['web__*'] });
        await eventually(async () => state.read('started-slow'), (v) => v !== null, 20_000);
        await first.stop();
        await fixture({ port: first.port, env: { MCP_STATE_DIR: state.dir } });
        expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'finished' });
        expect(lastToolResult(h.model.requests)).toMatchObject({ content: 'waited 1000 ms' });
        const keys = state.calls().filter((c) => c.tool === 'slow').map((c) => c.key);
        expect(keys).toEqual([keys[0], keys[0]]); // two attempts, one idempotency key
        expect(h.agent.mcp!.session('web')!.connects).toBe(2);
      });
    } finally {
      state.remove();
    }
  });

  it('answers with an is_error result naming the server when it stays down past its reconnectFor', async () => {
    const server = await fixture();
    const script: Script = [reply([toolUse('web__echo', { text: 'anyone?' })]), reply([text('gave up')])];
    await withAgent(env, { script, mcpServers: { web: { url: server.url, reconnectFor: '1s' } } }, async (h) => {
      await server.stop();
      const id = await startRun(h, 'echo into the void', { tools: ['web__*'] });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'gave up' });
      const result = lastToolResult(h.model.requests);
      expect(result.is_error).toBe(true);
      expect(result.content).toMatch(/^Tool "web__echo" failed: MCP server "web" is unavailable: /);
    });
  });

  it('rides out a server killed mid-call and started again after more than two heartbeat timeouts: the call heartbeats while it reconnects and succeeds within its first attempt', { timeout: 90_000 }, async () => {
    const state = stateDir();
    try {
      const first = await fixture({ env: { MCP_STATE_DIR: state.dir } });
      const script: Script = [reply([toolUse('web__slow', { ms: 1000 })]), reply([text('finished')])];
      await withAgent(env, { script, mcpServers: { web: { url: first.url } } }, async (h) => {
        // A short heartbeat timeout, so the outage can outlast it twice over in seconds, not the default's 20 s.
        const id = await startRun(h, 'wait over http', { tools: ['web__*'], heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS });
        await eventually(async () => state.read('started-slow'), (v) => v !== null, 20_000);
        await first.stop();
        // Down until the server has recorded the call's heartbeats over more than two heartbeat timeouts: without
        // them it would have timed the call out and retried it (a second attempt, asserted against below).
        const handle = env.client.workflow.getHandle(id);
        const beats = new Set<number>();
        await vi.waitFor(
          async () => {
            const call = ((await handle.describe()).raw.pendingActivities ?? []).find((a) => a.activityType?.name !== 'callModel');
            if (call?.lastHeartbeatTime) beats.add(eventMs(call.lastHeartbeatTime));
            expect(Math.max(...beats) - Math.min(...beats)).toBeGreaterThan(2 * HEARTBEAT_TIMEOUT_MS);
          },
          { timeout: 60_000, interval: 200 },
        );
        await fixture({ port: first.port, env: { MCP_STATE_DIR: state.dir } });
        expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'finished' });
        expect(lastToolResult(h.model.requests)).toMatchObject({ content: 'waited 1000 ms' });
        const history = await env.client.workflow.getHandle(id).fetchHistory();
        const started = (history.events ?? []).filter((e) => e.activityTaskStartedEventAttributes && e.activityTaskStartedEventAttributes.attempt);
        expect(started.map((e) => e.activityTaskStartedEventAttributes!.attempt)).toEqual([1, 1, 1, 1]); // describe, model, tool, model
        expect(h.agent.mcp!.session('web')!.connects).toBe(2);
      });
    } finally {
      state.remove();
    }
  });

  it("feeds the server's progress notifications into the call's progress, shown by status", async () => {
    const state = stateDir();
    try {
      const server = await fixture({ env: { MCP_STATE_DIR: state.dir } });
      // The steps are sent at once, then the call lasts 2.5 s: a short heartbeat timeout (beats every third of it, sent at
      // most every 80 % of it) has the server record the last step's progress well within that, not at the 3 s cap.
      const script: Script = [reply([toolUse('web__progress', { steps: 4, ms: 2500 })]), reply([text('finished')])];
      await withAgent(env, { script, mcpServers: { web: { url: server.url } } }, async (h) => {
        const id = await startRun(h, 'report progress', { tools: ['web__*'], heartbeatTimeoutMs: HEARTBEAT_TIMEOUT_MS });
        const status = await eventually(
          () => getStatus(env.client, id),
          (s) => s.toolCalls[0]?.progress?.message === 'step 4 of 4',
          10_000,
        );
        expect(status.toolCalls[0].progress).toMatchObject({ message: 'step 4 of 4', fraction: 1 });
        expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'finished' });
      });
    } finally {
      state.remove();
    }
  });
});
