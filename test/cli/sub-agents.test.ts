// Sub-agents from the CLI, on the research example (an orchestrator with two sub-agents, offline on its scripted
// model): `run` delegates, `status` (text and --json) shows the children, `transcript` names each delegation's child
// run and shows a child's own conversation, `list` shows a child's parent, `--agents` narrows what the model is offered.
import { describe, expect, it } from 'vitest';
import { expectExit, jsonOf, stopWorker, useCli, type CliProcess } from '../helpers/cli.js';

const RESEARCH = 'examples/research/durable-agent.config.mjs';
const { session } = useCli();

interface Child {
  workflowId: string;
  agent: string;
  status: string;
  steps: number;
  costUsd: number | null;
}

describe('sub-agents from the CLI', () => {
  it('run delegates to two researchers at once and a writer; status, transcript and list show the tree', async () => {
    const { cli } = session();
    const run = await cli(['run', '--config', RESEARCH, '--json', 'Compare France and Germany']);
    expectExit(run, 0);
    const result = jsonOf<{ workflowId: string; status: string; text: string; steps: number }>(run);
    expect(result.status).toBe('completed');
    expect(result.text).toMatch(/^Report\. Finding for "population of France": .* Finding for "population of Germany": /);
    const id = result.workflowId;

    const status = jsonOf<{ children: Child[] }>(await cli(['status', id, '--json']));
    expect(status.children.map((c) => [c.workflowId, c.agent, c.status, c.steps])).toEqual([
      [`${id}/toolu_0_1`, 'researcher', 'completed', 2],
      [`${id}/toolu_0_2`, 'researcher', 'completed', 2],
      [`${id}/toolu_1_0`, 'writer', 'completed', 1],
    ]);
    const text = await cli(['status', id]);
    expectExit(text, 0);
    expect(text.stdout).toMatch(/^children: {10}3$/m);
    expect(text.stdout).toContain(`  ${id}/toolu_0_1  researcher  completed  2 model calls  `);

    const transcript = await cli(['transcript', id]);
    expectExit(transcript, 0);
    expect(transcript.stdout).toContain(`[tool_use agent__researcher] {"task":"population of France"}  (toolu_0_1)\n  → child run ${id}/toolu_0_1`);
    const child = await cli(['transcript', `${id}/toolu_0_1`]);
    expectExit(child, 0);
    expect(child.stdout).toMatch(/^── 1\. user ──\npopulation of France$/m);
    expect(child.stdout).toContain('[tool_use web_search] {"query":"population of France"}');

    const list = await cli(['list', '--limit', '50']);
    expectExit(list, 0);
    const childLine = list.stdout.split('\n').find((l) => l.startsWith(`${id}/toolu_1_0 `));
    // Its PARENT column names the parent (a SCHEDULE or BATCH column may follow it, when some run listed has one).
    expect(childLine).toMatch(new RegExp(`\\s${id}(\\s|$)`));
  });

  it('--agents narrows the sub-agents the model is offered, and --agents none offers none', async () => {
    const { cli } = session();
    const run = await cli(['run', '--config', RESEARCH, '--agents', 'writer', '--json', 'Compare France and Germany']);
    expectExit(run, 0);
    const result = jsonOf<{ text: string; toolCalls: number }>(run);
    // The researcher is not offered: the orchestrator's two calls to it are refused with an error result.
    expect(result.toolCalls).toBeGreaterThan(0);
    const transcript = await cli(['transcript', jsonOf<{ workflowId: string }>(run).workflowId]);
    expect(transcript.stdout).toMatch(/\[tool_result agent__researcher ERROR\] \(toolu_0_1\) There is no sub-agent "researcher" in this run \(it may use: agent__writer\)/);

    const none = await cli(['run', '--config', RESEARCH, '--agents', 'none', '--json', 'Compare France and Germany']);
    // Every call is refused (no agent__ tool exists in the run), so the error streak stops it.
    expect(jsonOf<{ guard: string }>(none).guard).toBe('error_streak');
    const noneTranscript = await cli(['transcript', jsonOf<{ workflowId: string }>(none).workflowId]);
    expect(noneTranscript.stdout).toMatch(/\[tool_result agent__researcher ERROR\]/);
    expect(noneTranscript.stdout).not.toContain('→ child run');
  });

  it("watch follows the children's steps, indented under the parent and named by their agent", async () => {
    const { cli, spawn } = session();
    let worker: CliProcess | undefined;
    try {
      worker = spawn(['worker', '--scripted', '--config', RESEARCH]);
      await worker.waitForStderr(/worker polling task queue/);
      const started = await cli(['start', '--config', RESEARCH, 'Compare France and Germany']);
      expectExit(started, 0);
      const id = started.stdout.trim();
      const watch = await cli(['watch', id]);
      expectExit(watch, 0);
      expect(watch.stdout).toContain(`  ⇒ child run ${id}/toolu_0_1 (researcher)`);
      expect(watch.stdout).toMatch(/^ {4}researcher │ task: population of France$/m);
      expect(watch.stdout).toMatch(/^ {4}researcher │ {3}→ web_search \{"query":"population of France"\}/m);
      expect(watch.stdout).toMatch(/^ {4}writer │ ended: completed$/m);
      expect(watch.stdout).toMatch(/^ {2}← agent__writer: Report\. /m);
    } finally {
      await stopWorker(worker);
    }
  });
});
