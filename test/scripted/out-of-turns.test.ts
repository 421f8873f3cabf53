// A script that runs out of turns (its last reply is a tool_use, so the run asks for one more) is the most common
// scripting mistake. The scripted model answers it with an error retrying cannot fix, naming the script and the turn
// it lacks: the model call is not retried, and the run fails with that message at once.
import { describe, expect, it } from 'vitest';
import { expectExit, jsonOf, toolTurn, useCli } from '../helpers/cli.js';

const { session, scriptFile } = useCli();

describe('a scripted model out of turns', () => {
  it('fails the run on its first attempt, naming the script file and the missing turn', async () => {
    const script = await scriptFile([toolTurn('6*7')]);
    const exit = await session().cli(['run', '--scripted', '--json', 'what is 6 times 7?'], { AGENT_SCRIPT: script });
    expectExit(exit, 1);
    const doc = jsonOf<{ status: string; error: string; steps: number; toolCalls: number }>(exit);
    expect(doc).toMatchObject({ status: 'failed', steps: 1, toolCalls: 1 });
    expect(doc.error).toContain(`the script ${script} has no turn 1`);
    expect(doc.error).toContain('(it has 1 turn, turn 0)');
    expect(doc.error).toMatch(/end_turn/);
    // Not retried: one failed attempt, said to be the end of it; none is followed by another.
    expect(exit.stderr).toMatch(/callModel failed on attempt 1 of \d+: .*; not retried \(retrying cannot fix it\): the run fails/);
    expect(exit.stderr).not.toMatch(/another attempt follows/);
  });
});
