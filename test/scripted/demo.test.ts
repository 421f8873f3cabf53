// The France demo script end to end through the real SDK, with the tools executed by hand; and script files.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstLargeNumber, franceDemoScript, loadScriptFile, startScriptedModel, type ScriptedModel } from '../../src/scripted/index.js';

const TASK = 'Search for the population of France and calculate what 15% of that number is';
const TOOLS = [
  { name: 'web_search', description: 'Search the web', input_schema: { type: 'object' as const, properties: { query: { type: 'string' } } } },
  { name: 'calculator', description: 'Evaluate arithmetic', input_schema: { type: 'object' as const, properties: { expression: { type: 'string' } } } },
];

/** Stand-ins for the real tools: a canned search result and a calculator for "a * b". */
function runTool(name: string, input: any): string {
  if (name === 'web_search') return `Results for "${input.query}": France population (2024 estimate): 68,606,000 inhabitants, INSEE.`;
  const [a, b] = String(input.expression).split('*').map(Number);
  return String(a * b);
}

let server: ScriptedModel;
let client: Anthropic;
beforeAll(async () => {
  server = await startScriptedModel({ script: franceDemoScript });
  client = new Anthropic({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
});
afterAll(() => server.close());

async function runAgent(task: string, tools = TOOLS): Promise<{ messages: MessageParam[]; replies: Message[] }> {
  const messages: MessageParam[] = [{ role: 'user', content: task }];
  const replies: Message[] = [];
  for (let step = 0; step < 6; step++) {
    const message = await client.messages.create({ model: 'claude-scripted', max_tokens: 1024, tools, messages });
    replies.push(message);
    messages.push({ role: 'assistant', content: message.content });
    if (message.stop_reason !== 'tool_use') break;
    const results: ToolResultBlockParam[] = message.content.flatMap((b) =>
      b.type === 'tool_use' ? [{ type: 'tool_result' as const, tool_use_id: b.id, content: runTool(b.name, b.input) }] : [],
    );
    messages.push({ role: 'user', content: results });
  }
  return { messages, replies };
}

describe('franceDemoScript', () => {
  it('searches, calculates 15%, then answers', async () => {
    const { replies } = await runAgent(TASK);
    expect(replies.map((r) => r.stop_reason)).toEqual(['tool_use', 'tool_use', 'end_turn']);
    expect(replies[0].content[1]).toMatchObject({ type: 'tool_use', name: 'web_search', input: { query: 'population of France' } });
    expect(replies[1].content[1]).toMatchObject({ type: 'tool_use', name: 'calculator', input: { expression: '68606000 * 0.15' } });
    expect(replies[2].content).toEqual([{ type: 'text', text: 'France has about 68,606,000 people; 15% of that is 10,290,900.' }]);
  });

  it('is deterministic: the same conversation gives the same messages', async () => {
    const first = await runAgent(TASK);
    const second = await runAgent(TASK);
    expect(second.replies).toEqual(first.replies);
  });

  it('answers other tasks with a pointer to AGENT_SCRIPT', async () => {
    const { replies } = await runAgent('Write a poem about the sea');
    expect(replies).toHaveLength(1);
    expect(replies[0].stop_reason).toBe('end_turn');
    expect((replies[0].content[0] as { text: string }).text).toMatch(/only knows the France demo.*AGENT_SCRIPT/s);
  });

  it('explains when the tools it needs are missing', async () => {
    const { replies } = await runAgent(TASK, [TOOLS[0]]);
    expect(replies[0].stop_reason).toBe('end_turn');
    expect((replies[0].content[0] as { text: string }).text).toContain('calculator');
  });

  it('finds the first large number in search results', () => {
    expect(firstLargeNumber('In 2024, France had 68,606,000 people')).toBe(68_606_000);
    expect(firstLargeNumber('about 68.4 million residents (2023)')).toBe(68_400_000);
    expect(firstLargeNumber('population 68 606 000')).toBe(68_606_000);
    expect(firstLargeNumber('population: 68.606.000')).toBe(68_606_000);
    expect(firstLargeNumber('68606000')).toBe(68_606_000);
    expect(firstLargeNumber('up 0.3% since 2023')).toBeNull();
  });
});

describe('loadScriptFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'scripted-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('loads a valid array of turns', async () => {
    const file = join(dir, 'ok.json');
    const turns = [
      { content: [{ type: 'tool_use', name: 'calc', input: { expression: '1+1' } }], stop_reason: 'tool_use' },
      { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
      { content: [{ type: 'text', text: '2' }], stop_reason: 'end_turn', usage: { input_tokens: 3 } },
    ];
    await writeFile(file, JSON.stringify(turns));
    expect(await loadScriptFile(file)).toEqual(turns);
  });

  it('names the file and the bad turn', async () => {
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify([{ content: [], stop_reason: 'end_turn' }, { content: [{ type: 'text' }], stop_reason: 'end_turn' }]));
    await expect(loadScriptFile(file)).rejects.toThrow(`${file}: turn 1: content[0]: text block needs a string "text"`);
    const notArray = join(dir, 'object.json');
    await writeFile(notArray, '{}');
    await expect(loadScriptFile(notArray)).rejects.toThrow(`${notArray}: a script file must hold a JSON array`);
    const badReason = join(dir, 'reason.json');
    await writeFile(badReason, JSON.stringify([{ content: [], stop_reason: 'done' }]));
    await expect(loadScriptFile(badReason)).rejects.toThrow(/reason\.json: turn 0: "stop_reason" must be one of/);
    await expect(loadScriptFile(join(dir, 'missing.json'))).rejects.toThrow(/missing\.json: cannot read/);
  });
});
