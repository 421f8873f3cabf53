// `replay`: the built CLI replays recorded runs with the current config's tools. Three runs recorded with a config's
// read-only `lookup` tool, replayed with the same config (exit 0) and with one whose tool now answers otherwise
// (exit 1, naming the run, the step and the tool, recorded vs new).
import path from 'node:path';
import { describe, it } from 'vitest';
import type { ReplayReport } from '../../src/client/index.js';
import type { AgentResult } from '../../src/core/types.js';
import { endTurn, expectExit, expectUsageError, jsonOf, ROOT, useCli } from '../helpers/cli.js';

const cli = useCli();
const V1 = path.join(ROOT, 'test/fixtures/config/lookup-v1.config.mjs');
const V2 = path.join(ROOT, 'test/fixtures/config/lookup-v2.config.mjs');
const lookupTurn = (item: string) => ({ content: [{ type: 'tool_use', name: 'lookup', input: { item } }], stop_reason: 'tool_use' });

describe('replay (the built CLI)', { timeout: 180_000 }, () => {
  it('3 recorded runs: exit 0 with unchanged tools and with the live scripted model; exit 1 naming the step where a new system prompt changes the model’s choice, and run, step and tool when the tool changed', async ({ expect }) => {
    const s = cli.session();
    const script = await cli.scriptFile([lookupTurn('tea'), lookupTurn('coffee'), endTurn('tea 42, coffee 42')]);
    const ids: string[] = [];
    for (const task of ['prices 1', 'prices 2', 'prices 3']) {
      const exit = await s.cli(['run', task, '--scripted', '--config', V1, '--tools', 'lookup', '--json'], { AGENT_SCRIPT: script });
      expectExit(exit, 0);
      ids.push(jsonOf<AgentResult>(exit).workflowId);
    }

    const same = await s.cli(['replay', ...ids, '--config', V1]);
    expectExit(same, 0);
    for (const id of ids) expect(same.stdout).toContain(`${id}: 3 steps checked (2 tool calls made again), 3 agree\n  every step agrees`);

    // A run that could not be read beside them is not compared: exit 1, and the summary says so (nothing diverged).
    const mixed = await s.cli(['replay', ids[0], 'no-such-run-3', '--config', V1]);
    expectExit(mixed, 1);
    expect(mixed.stdout).toContain('no-such-run-3: the run could not be read');
    expect(mixed.stderr).toMatch(/^replay: 1 run could not be replayed$/m);

    const json = await s.cli(['replay', ...ids, '--config', V1, '--json']);
    expectExit(json, 0);
    expect(jsonOf<ReplayReport>(json)).toMatchObject({ diverged: false });

    // The config's scripted model answers as the recorded runs' script did: every step agrees.
    const live = await s.cli(['replay', ids[0], '--config', V1, '--live-model', '--scripted']);
    expectExit(live, 0);
    expect(live.stdout).toContain('(2 tool calls made again, the model asked again at 3 steps), 3 agree');
    // A system prompt that makes it look up another item first: step 1 is where the model disagrees.
    const steered = await s.cli(['replay', ids[0], '--config', V1, '--live-model', '--scripted', '--system', 'COFFEE FIRST']);
    expectExit(steered, 1);
    expect(steered.stdout, steered.stderr).toContain(`${ids[0]}: 3 steps checked (2 tool calls made again, the model asked again at 1 step), 2 agree\n  first divergence: step 1, model`);
    expect(steered.stdout).toContain('"item":"tea"');
    expect(steered.stdout).toContain('"item":"coffee"');

    const changed = await s.cli(['replay', ...ids, '--config', V2]);
    expectExit(changed, 1);
    expect(changed.stdout).toContain(`${ids[1]}: 3 steps checked (2 tool calls made again), 1 agree\n  first divergence: step 1, tool lookup`);
    expect(changed.stdout).toContain('recorded: tea costs 42 EUR');
    expect(changed.stdout).toContain('new: tea costs 45 USD');
    const report = jsonOf<ReplayReport>(await s.cli(['replay', ...ids, '--config', V2, '--json']));
    expect(report.runs.map((r) => r.firstDivergence?.step)).toEqual([1, 1, 1]);
  });

  it('bad input is exit 2: no runs named, a flag of --live-model alone, an unknown run, a query the server cannot parse', async ({ expect }) => {
    const s = cli.session();
    expectUsageError(await s.cli(['replay']), /name the runs to replay/);
    expectUsageError(await s.cli(['replay', 'some-run', '--system', 'x']), /--system applies to --live-model only/);
    const unknown = await s.cli(['replay', 'no-such-run-xyz']);
    expectUsageError(unknown, /run no-such-run-xyz: the run could not be read/);
    expect(unknown.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
    // Several runs none of which exists: the same, each named; the summary never says something diverged.
    const unknowns = await s.cli(['replay', 'no-such-run-1', 'no-such-run-2']);
    expectUsageError(unknowns, /^error: run no-such-run-1: the run could not be read: .*; run no-such-run-2: the run could not be read: /m);
    expect(unknowns.stderr).not.toContain('diverged');
    // A query the server cannot parse is the caller's to fix (exit 2, the server's reason), not a bug report.
    const malformed = await s.cli(['replay', '--query', "WorkflowType = 'agentWorkflow' AND"]);
    expectUsageError(malformed, /^error: the query is not a valid visibility query: .*syntax error/m);
    expect(malformed.stderr).not.toContain('bug report');
    expectUsageError(await s.cli(['replay', '--query', "NoSuchAttribute = 'x'"]), /^error: the query is not a valid visibility query: .*'NoSuchAttribute' is not a valid search attribute/m);
  });
});
