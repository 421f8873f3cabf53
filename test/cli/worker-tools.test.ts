// `start` runs no worker: it asks the task queue's workers what they offer (the agentToolCatalog workflow), so a
// worker configured in code (AgentPlugin({ mcpServers })) has its MCP tools checked, suggested and offered by
// default, and a typo is exit 2 before any run starts.
import { describe, expect, it, vi } from 'vitest';
import { hasPollers } from '../../src/client/task-queue.js';
import type { AgentInput } from '../../src/core/types.js';
import { expectUsageError, useCli } from '../helpers/cli.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';
import { stdioFixture } from '../helpers/mcp.js';

const cli = useCli();
const env = useTestEnv();

async function inputOf(id: string): Promise<AgentInput> {
  const history = await cli.client().workflow.getHandle(id).fetchHistory();
  const started = history.events![0].workflowExecutionStartedEventAttributes!;
  const { defaultPayloadConverter } = await import('@temporalio/common');
  return defaultPayloadConverter.fromPayload(started.input!.payloads![0]) as AgentInput;
}

describe('start checks tool names against what the task queue’s workers offer', { timeout: 120_000 }, () => {
  it('a worker’s MCP tools configured in its code: an exact name starts, a typo is exit 2 with the nearest name, no --tools offers them all', async () => {
    const s = cli.session();
    // The model never answers (its one turn is held): each run is terminated once its input is read.
    const held = { hold: true, content: [{ type: 'text' as const, text: 'never sent' }], stop_reason: 'end_turn' as const };
    await withAgent(env, { script: [held], taskQueue: s.taskQueue, mcpServers: { everything: stdioFixture() } }, async () => {
      // The server lists the worker as a poller of the queue once its first poll has arrived (under load, after
      // withAgent returned): until then start would rightly say that no worker polls it.
      await vi.waitFor(async () => expect(await hasPollers(cli.client(), s.taskQueue)).toBe(true), { timeout: 30_000, interval: 100 });
      const exact = await s.startedId(['--tools', 'everything__echo', 'echo something']);
      expect((await inputOf(exact)).settings.tools).toEqual(['everything__echo']);

      const typo = await s.cli(['start', '--tools', 'everything__ech', 'echo something']);
      expectUsageError(typo, /unknown tool "everything__ech" \(did you mean "everything__echo"\?\) in --tools \(available: calculator, web_search, everything__\*\)/);

      const all = await s.startedId(['echo something']);
      expect((await inputOf(all)).settings.tools).toEqual(expect.arrayContaining(['calculator', 'everything__*']));
      for (const id of [exact, all]) await cli.client().workflow.getHandle(id).terminate('test cleanup');
    });
  });

  it('with no worker polling, an MCP name this process cannot know is exit 2, saying where such tools come from and how to make it work', async () => {
    const s = cli.session();
    const exit = await s.cli(['start', '--tools', 'memory__read_graph', 'remember this']);
    expectUsageError(exit, /unknown tool "memory__read_graph" in --tools/);
    expect(exit.stderr).toMatch(/no worker polls task queue "[^"]+", so only this process's tools are known here/);
    expect(exit.stderr).toMatch(/AgentPlugin\(\{ mcpServers \}\)/);
  });
});
