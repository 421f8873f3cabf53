// `watch` prints a child run's block under the step that delegated to it: after the parent's `→ agent__<name>` call
// and before that call's result and the parent's next step, not after it. On a finished run, where one read gets
// the whole transcript at once, this is where the order went wrong. Issue 42, item 8 (d).
import { describe, expect, it } from 'vitest';
import { expectExit, jsonOf, useCli } from '../helpers/cli.js';

const RESEARCH = 'examples/research/durable-agent.config.mjs';
const { session } = useCli();

describe('watch on a run that delegates', () => {
  it("prints each child's block under the parent's delegating call, before its result and the next step", async () => {
    const { cli } = session();
    const run = await cli(['run', '--config', RESEARCH, '--json', 'Compare France and Germany']);
    expectExit(run, 0);
    const id = jsonOf<{ workflowId: string }>(run).workflowId;
    const watch = await cli(['watch', id]);
    expectExit(watch, 0);
    const lines = watch.stdout.split('\n');
    const at = (pattern: RegExp) => {
      const i = lines.findIndex((l) => pattern.test(l));
      expect(i, `${pattern} in\n${watch.stdout}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    const step = (n: number) => at(new RegExp(`^step ${n} · `));
    const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    const children = [
      { toolUseId: 'toolu_0_1', agent: 'researcher', step: 1 },
      { toolUseId: 'toolu_0_2', agent: 'researcher', step: 1 },
      { toolUseId: 'toolu_1_0', agent: 'writer', step: 2 },
    ];
    let previousEnd = -1;
    for (const child of children) {
      const call = at(new RegExp(`^  → agent__${child.agent} .*\\(${child.toolUseId}\\)$`));
      const header = at(new RegExp(`^  ⇒ child run ${esc(`${id}/${child.toolUseId}`)} \\(${child.agent}\\)$`));
      // Its block: the header, its own lines, down to its end; then the parent goes on.
      const end = lines.findIndex((l, i) => i > header && l === `    ${child.agent} │ ended: completed`);
      expect(end, watch.stdout).toBeGreaterThan(header);
      for (const line of lines.slice(header + 1, end)) expect(line, watch.stdout).toMatch(new RegExp(`^    ${child.agent} │ `));
      expect(call, watch.stdout).toBeGreaterThan(step(child.step));
      expect(header, watch.stdout).toBeGreaterThan(call);
      expect(header, watch.stdout).toBeGreaterThan(previousEnd);
      // Before the parent's next step, and right before the result of the call that started it.
      expect(end, watch.stdout).toBeLessThan(step(child.step + 1));
      expect(lines[end + 1], watch.stdout).toMatch(new RegExp(`^  ← agent__${child.agent}: `));
      previousEnd = end;
    }
  });
});
