// A config's scripted model can hold one script per agent: `scriptedModel: { script, agents: { <name>: script } }`.
// The top-level run answers from `script`, each sub-agent from its own, told apart by the system prompt of its
// definition (a request carries no agent name). Before, one array script was shared by the parent and its children,
// so a child replayed the parent's turns. And a child that fails is an is_error tool_result for its parent.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectExit, expectUsageError, jsonOf, useCli } from '../helpers/cli.js';

const { session } = useCli();

const tool = (name: string, input: unknown) => ({ content: [{ type: 'tool_use', name, input }], stop_reason: 'tool_use' });
const answer = (text: string) => ({ content: [{ type: 'text', text }], stop_reason: 'end_turn' });

/** A config file with one sub-agent, `helper`, and the scripted model `scriptedModel`. */
async function configFile(scriptedModel: unknown, helper: Record<string, unknown> = { system: 'You are the helper. Compute what you are asked.' }): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sub-agent-scripts-'));
  const file = path.join(dir, 'agents.config.mjs');
  const config = { agents: { helper: { description: 'Computes one thing.', tools: ['calculator'], maxSteps: 4, ...helper } }, scriptedModel };
  await writeFile(file, `export default ${JSON.stringify(config, null, 2)};\n`);
  return file;
}

interface Block {
  type: string;
  name?: string;
  content?: unknown;
  is_error?: boolean;
}
const blocksOf = (messages: Array<{ content: string | Block[] }>): Block[] => messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content));

describe('a scripted model with one script per agent', () => {
  it('the parent answers from its script, the sub-agent from its own; the parent gets the child’s answer', async () => {
    const { cli } = session();
    const config = await configFile({
      script: [tool('agent__helper', { task: 'what is 6*7?' }), answer('The helper has answered.')],
      agents: { helper: [tool('calculator', { expression: '6*7' }), answer('6*7 is 42')] },
    });
    const run = await cli(['run', '--scripted', '--config', config, '--json', 'ask the helper']);
    expectExit(run, 0);
    const result = jsonOf<{ workflowId: string; status: string; text: string }>(run);
    expect(result).toMatchObject({ status: 'completed', text: 'The helper has answered.' });
    const parent = blocksOf(jsonOf(await cli(['transcript', result.workflowId, '--json'])));
    expect(parent.filter((b) => b.type === 'tool_result')).toEqual([expect.objectContaining({ content: '6*7 is 42' })]);
    expect(parent.find((b) => b.type === 'tool_result')?.is_error).toBeFalsy();
    const child = blocksOf(jsonOf(await cli(['transcript', `${result.workflowId}/toolu_0_0`, '--json'])));
    expect(child.filter((b) => b.type === 'tool_use').map((b) => b.name)).toEqual(['calculator']);
  });

  it('a sub-agent whose script runs out of turns fails, and its parent gets an is_error result naming why', async () => {
    const { cli } = session();
    const config = await configFile({
      script: [tool('agent__helper', { task: 'what is 6*7?' }), answer('The helper failed.')],
      agents: { helper: [tool('calculator', { expression: '6*7' })] },
    });
    const run = await cli(['run', '--scripted', '--config', config, '--json', 'ask the helper']);
    expectExit(run, 0);
    const result = jsonOf<{ workflowId: string }>(run);
    const results = blocksOf(jsonOf(await cli(['transcript', result.workflowId, '--json']))).filter((b) => b.type === 'tool_result');
    expect(results).toHaveLength(1);
    expect(results[0].is_error).toBe(true);
    expect(String(results[0].content)).toMatch(/^Sub-agent "helper" \(\S+\/toolu_0_0\) failed: .*the script for agent "helper" .*has no turn 1/);
    const status = jsonOf<{ view: { children: Array<{ agent: string; status: string }> } }>(await cli(['status', result.workflowId, '--json']));
    expect(status.view.children.map((c) => [c.agent, c.status])).toEqual([['helper', 'failed']]);
  });

  it('refuses (exit 2) a script for an agent the config does not define, or one without a system prompt to tell it by', async () => {
    const { cli } = session();
    const unknown = await configFile({ script: [answer('hi')], agents: { helpr: [answer('hi')] } });
    expectUsageError(await cli(['run', '--scripted', '--config', unknown, 'hi']), /scriptedModel\.agents: no agent "helpr" in the config's agents \(did you mean helper\?\)/);
    const silent = await configFile({ script: [answer('hi')], agents: { helper: [answer('hi')] } }, { system: undefined });
    expectUsageError(await cli(['run', '--scripted', '--config', silent, 'hi']), /scriptedModel\.agents\.helper: the agent "helper" has no system prompt/);
  });
});
