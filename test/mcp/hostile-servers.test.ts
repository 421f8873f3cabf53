// MCP servers that misbehave, against the real fixture over stdio (no Temporal: the worker tests run the same through
// activities): hostile schemas, listings that never end, list_changed storms, hung calls, answers that are not MCP,
// answers over the read limit.
import { CancelledFailure } from '@temporalio/common';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { connectMcpServers, type McpTools } from '../../src/mcp/tools.js';
import { toolContext } from '../../src/tools/context.js';
import { ToolError, type ToolContext } from '../../src/tools/types.js';
import { executeTool } from '../../src/tools/execute.js';
import { stateDir, stdioFixture } from '../helpers/mcp.js';
import { watchNativeRegExp } from '../helpers/native-regexp.js';

const context = (signal = new AbortController().signal): ToolContext =>
  toolContext({ workflowId: 'wf-1', toolUseId: 'toolu_1', idempotencyKey: 'wf-1/toolu_1', signal });

const startupError = (servers: Parameters<typeof connectMcpServers>[0]) =>
  connectMcpServers(servers, { log: () => {} }).then(
    async (mcp) => {
      await mcp.close();
      throw new Error('expected the servers to be refused');
    },
    (e: unknown) => e as Error,
  );

describe('hostile schemas', () => {
  it('validates a call against a pattern that backtracks exponentially, never on JavaScript\'s backtracking engine', async () => {
    const mcp = await connectMcpServers({ fx: stdioFixture({ args: ['--hostile-schema'] }) }, { log: () => {} });
    const native = watchNativeRegExp();
    try {
      const tool = mcp.tool('fx__match')!;
      const outcome = await executeTool({ get: () => tool, names: () => [tool.name], definitions: () => [] }, { name: tool.name, input: { s: `${'a'.repeat(28)}!` }, allowedTools: [tool.name] }, context());
      expect(outcome).toEqual({ isError: true, content: 'Invalid input for tool "fx__match": /s must match pattern "^(a+)+$"' });
    } finally {
      native.restore();
      await mcp.close();
    }
    expect(native.sources.has('^(a+)+$')).toBe(false);
  });

  it('refuses at listing a tool whose pattern the linear-time engine cannot run, in one line naming the server and the tool', async () => {
    const err = await startupError({ fx: stdioFixture({ args: ['--lookahead-schema'] }) });
    expect(err.message).toMatch(
      /^MCP server "fx": Tool "fx__ahead" has an invalid input schema: pattern "\^\(\?=a\)a\+\$" cannot run on the linear-time regex engine \(.*\); patterns may not use lookaround or backreferences$/,
    );
  });

  it('says in one line what is wrong with a listing that is not valid MCP', async () => {
    const err = await startupError({ fx: stdioFixture({ args: ['--invalid-schema'] }) });
    expect(err.message.split('\n')).toHaveLength(1);
    expect(err.message).toMatch(/^MCP server "fx" \(.*\) did not start: its answer is not valid MCP: tools\.\d+\.inputSchema\.type: .*object/);
  });
});

describe('tools/list caps', () => {
  it('stops a listing that pages forever at maxListPages, saying which setting to raise', async () => {
    const state = stateDir();
    try {
      const err = await startupError({ fx: { ...stdioFixture({ args: ['--endless-pages'], stateDir: state.dir }), maxListPages: 20 } });
      expect(err.message).toMatch(
        /^MCP server "fx" \(.*\) did not start: its tools\/list did not end within 20 pages \(\d+ tools so far; a server that pages forever\?\): if it really has more, raise mcpServers\.fx\.maxListPages$/,
      );
      expect(state.read('lists.log')!.trim().split('\n')).toHaveLength(20);
    } finally {
      state.remove();
    }
  });

  it('stops at the default of 100 pages', async () => {
    const err = await startupError({ fx: stdioFixture({ args: ['--endless-pages'] }) });
    expect(err.message).toMatch(/did not end within 100 pages/);
  });

  it('refuses a server with more than maxTools tools', async () => {
    const err = await startupError({ fx: { ...stdioFixture({ args: ['--many-tools', '50'] }), maxTools: 40 } });
    expect(err.message).toMatch(/^MCP server "fx" \(.*\) did not start: it offers more than 40 tools \(57 in 1 page\): if it really has that many, raise mcpServers\.fx\.maxTools$/);
  });
});

describe('list_changed', () => {
  const state = stateDir();
  const logs: string[] = [];
  let mcp: McpTools;
  afterAll(async () => {
    await mcp?.close();
    state.remove();
  });

  it('answers a burst of 5,000 notifications with one refresh in flight and one queued', async () => {
    // Each listing takes 4 s: the whole burst arrives while the first refresh is in flight (the tool's answer comes
    // after its 5,000 notifications on the same stream). With 1.5 s a machine loaded by three test suites at once read
    // the burst for longer than that, and a late notification queued a third refresh (seen once, 2026-12-06).
    mcp = await connectMcpServers({ fx: stdioFixture({ args: ['--misbehave', '--slow-list', '4000'], stateDir: state.dir }) }, { log: (m) => logs.push(m) });
    const session = mcp.session('fx')!;
    expect(session.listings).toBe(1);
    expect(await mcp.tool('fx__spam_list_changed')!.execute({ count: 5000 }, context())).toBe('sent 5000');
    await vi.waitFor(() => expect(session.listings).toBeGreaterThan(1));
    await session.refreshed();
    expect(session.listings).toBe(3);
    expect(state.read('lists.log')!.trim().split('\n')).toHaveLength(3);
    expect(mcp.toolNames()).toContain('fx__echo');
  });
});

describe('a list_changed refresh that hits a cap', () => {
  it('keeps the tools listed before, saying so in one line', async () => {
    const logs: string[] = [];
    const mcp = await connectMcpServers(
      { fx: { ...stdioFixture({ args: ['--misbehave', '--endless-after-change'] }), maxListPages: 5 } },
      { log: (m) => logs.push(m) },
    );
    try {
      const before = mcp.toolNames();
      await mcp.tool('fx__spam_list_changed')!.execute({ count: 1 }, context());
      await vi.waitFor(() => expect(mcp.session('fx')!.listings).toBe(2));
      await mcp.session('fx')!.refreshed();
      expect(logs).toEqual([
        `MCP server "fx": listing its tools again failed: its tools/list did not end within 5 pages (${before.length + 4} tools so far; a server that pages forever?): ` +
          `if it really has more, raise mcpServers.fx.maxListPages; its ${before.length} tools listed before are kept`,
      ]);
      expect(mcp.toolNames()).toEqual(before);
    } finally {
      await mcp.close();
    }
  });
});

describe('hung and broken calls', () => {
  it('restarts the session and process of a server whose call timed out, so the retry gets a fresh one', async () => {
    const state = stateDir();
    const logs: string[] = [];
    const mcp = await connectMcpServers({ fx: stdioFixture({ args: ['--misbehave', '--hang-first'], stateDir: state.dir }) }, { log: (m) => logs.push(m) });
    try {
      const session = mcp.session('fx')!;
      const firstPid = session.pid!;
      const controller = new AbortController();
      const hung = mcp.tool('fx__hang')!.execute({}, context(controller.signal));
      await vi.waitFor(() => expect(state.read('hung')).toBe(String(firstPid)));
      // What a Temporal activity's signal carries when its start-to-close timeout passed.
      controller.abort(new CancelledFailure('TIMED_OUT'));
      await expect(hung).rejects.toThrow('TIMED_OUT');
      expect(logs).toContain('MCP server "fx": "hang" got no answer within its timeout; restarting its session and process, so a retry gets a fresh one');
      expect(await mcp.tool('fx__hang')!.execute({}, context())).toMatch(/^answered by \d+$/);
      expect(session.pid).not.toBe(firstPid);
      expect(session.connects).toBe(2);
    } finally {
      await mcp.close();
      state.remove();
    }
  });

  it('gives up on a call just before its deadline, naming the server, and restarts the session and process', async () => {
    const state = stateDir();
    const logs: string[] = [];
    const mcp = await connectMcpServers({ fx: stdioFixture({ args: ['--misbehave', '--hang-first'], stateDir: state.dir }) }, { log: (m) => logs.push(m) });
    try {
      const firstPid = mcp.session('fx')!.pid!;
      const deadline = Date.now() + 1500;
      // When the call is given up on is when the timer it set fires (scheduled before the deadline, by a tenth of the
      // time left); when it actually fires is up to the machine's load, so that is not asserted.
      const timers: number[] = [];
      const original = globalThis.setTimeout;
      const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number, ...args: unknown[]) => {
        timers.push(Date.now() + (ms ?? 0));
        return (original as (...a: unknown[]) => unknown)(fn, ms, ...args);
      }) as never);
      const err = (await mcp
        .tool('fx__hang')!
        .execute({}, { ...context(), deadline })
        .catch((e: unknown) => e)
        .finally(() => spy.mockRestore())) as Error;
      expect(timers.filter((at) => at < deadline && at >= deadline - 1000).length, 'a give-up timer set before the deadline').toBeGreaterThan(0);
      expect(err).not.toBeInstanceOf(ToolError); // an infrastructure failure: the activity retries it
      expect(err.name).toBe('McpNoAnswer');
      expect(err.message).toBe('MCP server "fx" did not answer "hang" before the call\'s timeout; its session and process were restarted');
      expect(logs).toContain('MCP server "fx": "hang" got no answer before the call\'s timeout; restarting its session and process, so a retry gets a fresh one');
      expect(await mcp.tool('fx__hang')!.execute({}, context())).toMatch(/^answered by \d+$/);
      expect(mcp.session('fx')!.pid).not.toBe(firstPid);
    } finally {
      await mcp.close();
      state.remove();
    }
  });

  it('keeps the session of a call the run cancelled', async () => {
    const mcp = await connectMcpServers({ fx: stdioFixture() }, { log: () => {} });
    try {
      const controller = new AbortController();
      const call = mcp.tool('fx__slow')!.execute({ ms: 60_000 }, context(controller.signal));
      setTimeout(() => controller.abort(new CancelledFailure('CANCELLED')), 200);
      await expect(call).rejects.toThrow('CANCELLED');
      await mcp.tool('fx__echo')!.execute({ text: 'still' }, context());
      expect(mcp.session('fx')!.connects).toBe(1);
    } finally {
      await mcp.close();
    }
  });

  it('fails a call answered with something that is not MCP in one line naming the server, and restarts the session', async () => {
    const logs: string[] = [];
    const mcp = await connectMcpServers({ fx: stdioFixture({ args: ['--misbehave'] }) }, { log: (m) => logs.push(m) });
    try {
      const firstPid = mcp.session('fx')!.pid;
      const err = (await mcp.tool('fx__garble')!.execute({}, context()).catch((e: unknown) => e)) as Error;
      expect(err).not.toBeInstanceOf(ToolError); // an infrastructure failure: the activity retries it
      expect(err.name).toBe('McpBadAnswer');
      expect(err.message).toMatch(/^MCP server "fx" answered "garble" with something that is not an MCP result \(content: [^\n]*\); its session was restarted$/);
      expect(logs.some((l) => l.startsWith('MCP server "fx": answered "garble" with something that is not an MCP result'))).toBe(true);
      await mcp.tool('fx__echo')!.execute({ text: 'fresh' }, context());
      expect(mcp.session('fx')!.pid).not.toBe(firstPid);
    } finally {
      await mcp.close();
    }
  });

  it('fails a 20 MB result saying it is over the read limit and which setting raises it, and reads it once raised', async () => {
    const mcp = await connectMcpServers(
      { fx: { ...stdioFixture({ args: ['--misbehave'] }), reconnectFor: 0 }, roomy: { ...stdioFixture({ args: ['--misbehave'] }), maxMessageBytes: 32 * 1024 * 1024 } },
      { log: () => {} },
    );
    try {
      const err = await mcp.tool('fx__big')!.execute({ mb: 20 }, context()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ToolError);
      expect((err as Error).message).toBe(
        'MCP server "fx": the answer to "big" (or to a call in flight beside it) is over the 10 MiB a worker reads in one message from a stdio server; ask for a smaller result, or raise mcpServers.fx.maxMessageBytes',
      );
      expect(((await mcp.tool('roomy__big')!.execute({ mb: 12 }, context())) as string).length).toBe(12 * 1024 * 1024);
    } finally {
      await mcp.close();
    }
  });
});
