// `fork <id> --from-step N`: the built CLI as child processes. The fork's scripted model (in the fork's own process)
// answers by the step a request is at: a request for a reused step would get a reply that ends the run with the wrong
// answer. (test/client/fork.test.ts counts the requests.)
import { describe, it } from 'vitest';
import { turnsOfRun } from '../../src/client/turns.js';
import type { AgentResult } from '../../src/core/types.js';
import { endTurn, expectExit, expectUsageError, jsonOf, toolTurn, useCli } from '../helpers/cli.js';

const cli = useCli();

describe.concurrent('fork (the built CLI)', { timeout: 120_000 }, () => {
  it('fork --from-step 3 of a 3-step run: one live step, status, transcript and watch name the source and the reused steps', async ({ expect }) => {
    const s = cli.session();
    const script = await cli.scriptFile([toolTurn('1+1'), toolTurn('2+2'), endTurn('four')]);
    const source = jsonOf<AgentResult>(await s.cli(['run', 'add twice', '--scripted', '--tools', 'calculator', '--json'], { AGENT_SCRIPT: script }));
    expect(source).toMatchObject({ status: 'completed', steps: 3, toolCalls: 2 });

    const oneReply = await cli.scriptFile([endTurn('WRONG: step 1 was asked again'), endTurn('WRONG: step 2 was asked again'), endTurn('the forked answer')]);
    const fork = await s.cli(['fork', source.workflowId, '--from-step', '3', '--scripted', '--json'], { AGENT_SCRIPT: oneReply });
    expectExit(fork, 0);
    const forked = jsonOf<AgentResult>(fork);
    expect(forked).toMatchObject({ status: 'completed', text: 'the forked answer', steps: 3, toolCalls: 0 });
    expect(forked.forkedFrom).toMatchObject({ workflowId: source.workflowId, step: 3, reusedToolCalls: 2 });
    expect(fork.stderr).toContain(`forked ${source.workflowId} at step 3 as run ${forked.workflowId} (steps 1 to 2 reused)`);

    const status = await s.cli(['status', forked.workflowId]);
    expectExit(status, 0);
    expect(status.stdout).toMatch(new RegExp(`forked: +forked from ${source.workflowId} at step 3`));
    expect(status.stdout).toMatch(/reused: +steps 1–2 · 2 tool calls not run again/);

    const transcript = await s.cli(['transcript', forked.workflowId]);
    expectExit(transcript, 0);
    expect(transcript.stdout).toContain(`── reused: steps 1–2 of ${source.workflowId}, as recorded (not run again) ──`);
    expect(transcript.stdout).toContain('── live: from step 3');
    expect(transcript.stdout.indexOf('── live')).toBeLessThan(transcript.stdout.indexOf('the forked answer'));

    const watch = await s.cli(['watch', forked.workflowId]);
    expectExit(watch, 0);
    expect(watch.stdout).toContain(`forked from ${source.workflowId} at step 3: steps 1–2 reused as recorded (not run again)`);
    expect(watch.stdout).toMatch(/step 1 · reused · tool_use\n[^]*step 2 · reused · tool_use\n[^]*step 3 · model call · end_turn/);
  });

  it("a fork's flags are checked against the source's settings, not the defaults: --thinking under the source's --max-output-tokens is taken", async ({ expect }) => {
    const s = cli.session();
    const script = await cli.scriptFile([toolTurn('1+1'), endTurn('two')]);
    const source = jsonOf<AgentResult>(
      await s.cli(['run', 'add once', '--scripted', '--tools', 'calculator', '--max-output-tokens', '16000', '--thinking', '8000', '--json'], { AGENT_SCRIPT: script }),
    );
    expect(source).toMatchObject({ status: 'completed', steps: 2 });
    const answer = await cli.scriptFile([endTurn('WRONG: step 1 was asked again'), endTurn('the forked answer')]);
    const fork = await s.cli(['fork', source.workflowId, '--from-step', '2', '--thinking', '12000', '--scripted', '--json'], { AGENT_SCRIPT: answer });
    expectExit(fork, 0);
    expect(fork.stderr).toMatch(/^forked .* at step 2 as run .* \(step 1 reused\)$/m);
    const forked = jsonOf<AgentResult>(fork);
    expect(forked).toMatchObject({ status: 'completed', text: 'the forked answer' });
    const { input } = await turnsOfRun(cli.client(), forked.workflowId);
    expect(input?.settings).toMatchObject({ maxOutputTokens: 16000, thinkingBudget: 12000 });
    // A value the source's settings do not allow either is still refused before anything starts, naming both flags.
    const refused = await s.cli(['fork', source.workflowId, '--from-step', '2', '--thinking', '20000', '--scripted'], { AGENT_SCRIPT: answer });
    expectUsageError(refused, /--thinking must be less than --max-output-tokens \(16000; got 20000\)/);
  });

  it('fork --from-step 99 of a 3-step run: exit 2, one line saying how many steps it has; an unknown run: exit 2', async ({ expect }) => {
    const s = cli.session();
    const script = await cli.scriptFile([toolTurn('1+1'), toolTurn('2+2'), endTurn('four')]);
    const source = jsonOf<AgentResult>(await s.cli(['run', 'add twice', '--scripted', '--tools', 'calculator', '--json'], { AGENT_SCRIPT: script }));
    const refused = await s.cli(['fork', source.workflowId, '--from-step', '99', '--scripted'], { AGENT_SCRIPT: script });
    expectUsageError(refused, new RegExp(`^error: run ${source.workflowId} has 3 recorded steps: --from-step must be 1 to 3 \\(got 99\\)$`, 'm'));
    expect(refused.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
    const gone = await s.cli(['fork', 'no-such-run-xyz', '--from-step', '1', '--scripted'], { AGENT_SCRIPT: script });
    expectUsageError(gone, /no run no-such-run-xyz in this namespace: the id is wrong, or its history is gone/);
    expectUsageError(await s.cli(['fork', source.workflowId, '--scripted'], { AGENT_SCRIPT: script }), /--from-step N is required/);
  });
});
