// MCP progress and list changes through a real worker: every call carries a progressToken and the server's
// notifications become the call's progress (status shows it); a tools/list_changed refreshes the server's tools for
// runs that start afterwards, is logged, and leaves a run in flight with the definitions it recorded.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getAgentResult, getStatus } from '../../src/client/index.js';
import type { MessagesRequestBody } from '../../src/scripted/script.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { eventually, startRun, useTestEnv, withAgent } from '../helpers/harness.js';
import { stdioFixture } from '../helpers/mcp.js';

const env = useTestEnv();

const toolNames = (body: unknown) => ((body as MessagesRequestBody).tools ?? []).map((t) => (t as { name: string }).name);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('MCP progress', () => {
  it("shows the server's progress notifications as the call's progress while it runs", { timeout: 60_000 }, async () => {
    const script: Script = [reply([toolUse('fx__progress', { steps: 3, ms: 4000 })]), reply([text('done')])];
    await withAgent(env, { script, mcpServers: { fx: stdioFixture() } }, async (h) => {
      const id = await startRun(h, 'report progress', { tools: ['fx__*'], heartbeatTimeoutMs: 1500 });
      const status = await eventually(() => getStatus(env.client, id), (s) => s.toolCalls[0]?.progress?.message === 'step 3 of 3', 20_000);
      expect(status.toolCalls[0].progress).toMatchObject({ message: 'step 3 of 3', fraction: 1 });
      expect(await getAgentResult(env.client, id)).toMatchObject({ status: 'completed', text: 'done' });
    });
  });
});

describe('MCP tools/list_changed', () => {
  it('refreshes the tools for runs that start afterwards and logs it, while a run in flight keeps its recorded definitions', { timeout: 60_000 }, async () => {
    const logged: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return write(chunk, ...(rest as []));
    });
    const script: Script = (body: MessagesRequestBody) =>
      body.messages.length === 1 && /change/.test(JSON.stringify(body.messages[0].content))
        ? reply([toolUse('fx__spam_list_changed', { count: 1 })])
        : reply([text('ok')]);
    await withAgent(env, { script, mcpServers: { fx: stdioFixture({ args: ['--misbehave', '--grow-on-change'] }) } }, async (h) => {
      const first = await startRun(h, 'change the list', { tools: ['fx__*'] });
      expect(await getAgentResult(env.client, first)).toMatchObject({ status: 'completed' });
      await h.agent.mcp!.session('fx')!.refreshed();
      // The run in flight asked the model twice, offering what it recorded at its start both times.
      const [before, after] = h.model.requests.map((r) => toolNames(r.body));
      expect(before).not.toContain('fx__grown');
      expect(after).toEqual(before);
      expect(logged.join('')).toMatch(
        /MCP server "fx": its tool list changed \(notifications\/tools\/list_changed\): \d+ tools \(added: grown\); runs that start from now on get it, runs in flight keep the definitions they recorded/,
      );

      const second = await startRun(h, 'what now?', { tools: ['fx__*'] });
      expect(await getAgentResult(env.client, second)).toMatchObject({ status: 'completed' });
      expect(toolNames(h.model.requests[2].body)).toEqual([...before, 'fx__grown']);
    });
  });
});
