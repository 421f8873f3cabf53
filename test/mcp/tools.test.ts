// MCP tools as AgentTools, against the real fixture server over stdio (no Temporal here: the worker tests
// run the same through activities).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpServers, type McpTools } from '../../src/mcp/tools.js';
import { ToolError, type ToolContext } from '../../src/tools/types.js';
import { isAlive, stateDir, stdioFixture } from '../helpers/mcp.js';
import { toolContext } from '../../src/tools/context.js';

const context = (signal = new AbortController().signal): ToolContext =>
  toolContext({
  workflowId: 'wf-1',
  toolUseId: 'toolu_1',
  idempotencyKey: 'wf-1/toolu_1',
  signal,
  });

describe('MCP tools over stdio', () => {
  let mcp: McpTools;
  const state = stateDir();
  beforeAll(async () => {
    // reconnectFor 0: a crashed server's call fails at once here (reconnecting is tested on its own).
    mcp = await connectMcpServers({ fx: { ...stdioFixture({ stateDir: state.dir }), reconnectFor: 0 } }, { log: () => {} });
  });
  afterAll(async () => {
    await mcp?.close();
    state.remove();
  });

  it('offers each tool as <server>__<tool> with its description and schema', () => {
    expect(mcp.toolNames()).toEqual(['fx__echo', 'fx__fail', 'fx__image', 'fx__resource', 'fx__slow', 'fx__crash', 'fx__progress']);
    expect(mcp.tool('fx__echo')).toMatchObject({
      description: expect.stringContaining('Echoes'),
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
  });

  it("is read-only (replay calls it again) when its server says readOnlyHint, and only then", () => {
    expect(mcp.tool('fx__resource')?.readOnly).toBe(true);
    expect(mcp.tool('fx__echo')?.readOnly).toBeUndefined();
  });

  it('passes the idempotency key in _meta and returns the text', async () => {
    const out = await mcp.tool('fx__echo')!.execute({ text: 'hi' }, context());
    expect(JSON.parse(out as string)).toEqual({ echo: 'hi', idempotencyKey: 'wf-1/toolu_1' });
  });

  it('turns an isError result into a ToolError carrying its text', async () => {
    const err = await mcp.tool('fx__fail')!.execute({ reason: 'no disk' }, context()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect((err as Error).message).toBe('cannot do that: no disk');
  });

  it('maps image content to an image block and an embedded text resource to a document', async () => {
    expect(await mcp.tool('fx__image')!.execute({}, context())).toEqual([
      { type: 'text', text: 'a red pixel' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: expect.stringMatching(/^iVBOR/) } },
    ]);
    expect(await mcp.tool('fx__resource')!.execute({}, context())).toEqual([
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'buy milk' }, title: 'file:///notes/todo.txt' },
    ]);
  });

  it('cancels the MCP request when the signal aborts', async () => {
    const controller = new AbortController();
    const call = mcp.tool('fx__slow')!.execute({ ms: 60_000 }, context(controller.signal));
    await expect.poll(() => state.read('started-slow'), { timeout: 10_000 }).not.toBeNull();
    controller.abort(new Error('run cancelled'));
    await expect(call).rejects.toThrow('run cancelled');
    await expect.poll(() => state.read('cancelled-slow'), { timeout: 10_000 }).not.toBeNull();
  });

  it('reports a crashed server as unavailable, naming it, and reconnects on the next call', async () => {
    const before = mcp.session('fx')!.connects;
    const oldPid = mcp.session('fx')!.pid!;
    const err = await mcp.tool('fx__crash')!.execute({}, context()).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ToolError); // an infrastructure failure: the activity retries it
    expect((err as Error).name).toBe('McpServerUnavailable');
    expect((err as Error).message).toMatch(/^MCP server "fx" is unavailable: /);
    const out = await mcp.tool('fx__echo')!.execute({ text: 'back' }, context());
    expect(JSON.parse(out as string).echo).toBe('back');
    expect(mcp.session('fx')!.connects).toBe(before + 1);
    expect(mcp.session('fx')!.pid).not.toBe(oldPid);
  });

  it('describes exactly the tools a run names, by name or <server>__*', () => {
    expect(mcp.describe(['calculator', 'fx__echo', 'other__*']).covers).toEqual(['fx__echo']);
    expect(mcp.describe(['fx__echo']).definitions.map((d) => d.name)).toEqual(['fx__echo']);
    const all = mcp.describe(['fx__*', 'fx__echo']);
    expect(all.covers).toEqual(['fx__*', 'fx__echo']);
    expect(all.definitions.map((d) => d.name)).toEqual(mcp.toolNames());
  });
});

describe('MCP server startup', () => {
  it('refuses a tool whose prefixed name exceeds 64 characters, naming the server and the tool', async () => {
    const err = await connectMcpServers({ fx: stdioFixture({ args: ['--long-names'] }) }, { log: () => {} }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(
      /^MCP server "fx": its tool "a_tool_name_that_is_long_enough_to_pass_the_limit_with_prefix" would be offered to the model as "fx__a_tool.*", 65 characters; the Messages API allows 64: give the server a name of at most 1 character in mcpServers$/,
    );
  });

  it('refuses a tool name with characters the API does not allow', async () => {
    const err = await connectMcpServers({ fx: stdioFixture({ args: ['--bad-name'] }) }, { log: () => {} }).catch((e: unknown) => e);
    expect((err as Error).message).toContain('MCP server "fx": its tool "read.file" cannot be offered to the model as "fx__read.file"');
  });

  it('names a server that does not start, and leaves no process behind', async () => {
    const state = stateDir();
    try {
      const err = await connectMcpServers(
        { good: stdioFixture({ stateDir: state.dir }), broken: { command: '/nonexistent/mcp-server' } },
        { log: () => {} },
      ).catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/^MCP server "broken" \(\/nonexistent\/mcp-server\) did not start: .*ENOENT/);
      // The server that did start was stopped again.
      const pids = (state.read('pids.log') ?? '').split('\n').filter(Boolean).map(Number);
      expect(pids).toHaveLength(1);
      await expect.poll(() => isAlive(pids[0]), { timeout: 10_000 }).toBe(false);
    } finally {
      state.remove();
    }
  });

  it('offers a tool that requires task-based execution when its server takes task calls, and leaves it out, saying so, when not', async () => {
    const logs: string[] = [];
    const mcp = await connectMcpServers(
      { fx: stdioFixture({ args: ['--task-tool'] }), nt: stdioFixture({ args: ['--task-tool', '--no-tasks-capability'] }) },
      { log: (m) => logs.push(m) },
    );
    try {
      expect(mcp.toolNames()).toContain('fx__long_task');
      expect(mcp.toolNames()).not.toContain('nt__long_task');
      expect(mcp.toolNames()).toContain('nt__echo');
      expect(logs).toContain(
        'MCP server "nt": its tool "long_task" requires task-based execution (execution.taskSupport: "required"), but the server does not declare the tasks capability for tools/call; the tool is left out',
      );
    } finally {
      await mcp.close();
    }
  });

  it('stops stdio servers on close', async () => {
    const mcp = await connectMcpServers({ fx: stdioFixture() }, { log: () => {} });
    const pid = mcp.session('fx')!.pid!;
    expect(isAlive(pid)).toBe(true);
    await mcp.close();
    expect(isAlive(pid)).toBe(false);
  });
});
