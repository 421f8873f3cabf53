// The scripted model speaks compaction: a prompt past the compact_20260112 trigger gets a reply that begins with
// a compaction block (usage reported apart), a prompt past its window is the API's 400, and it can refuse the
// compaction and task-budget parameters as an endpoint without the betas does.
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, startScriptedModel, text, type ScriptedModel, type ScriptedModelOptions } from '../../src/scripted/index.js';

const servers: ScriptedModel[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function start(options: Omit<ScriptedModelOptions, 'script'> = {}) {
  const server = await startScriptedModel({ script: [reply([text('first')]), reply([text('second')]), reply([text('third')])], ...options });
  servers.push(server);
  return { server, client: new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 }) };
}

const compacting = (trigger: number) => ({ context_management: { edits: [{ type: 'compact_20260112' as const, trigger: { type: 'input_tokens' as const, value: trigger } }] } });
const long = 'x'.repeat(24_000); // about 6,000 tokens

describe('scripted compaction', () => {
  it('past the trigger, the reply begins with a compaction block; its usage is apart from the top-level usage', async () => {
    const { client } = await start();
    const message = await client.beta.messages.create({
      model: 'm',
      max_tokens: 100,
      betas: ['compact-2026-01-12'],
      messages: [{ role: 'user', content: long }],
      ...compacting(5_000),
    });
    expect(message.content[0]).toMatchObject({ type: 'compaction', content: expect.stringContaining('Summary') });
    expect(message.content[1]).toMatchObject({ type: 'text', text: 'first' });
    const iterations = message.usage.iterations as Array<{ type: string; input_tokens: number }>;
    expect(iterations.map((i) => i.type)).toEqual(['compaction', 'message']);
    expect(iterations[0].input_tokens).toBeGreaterThan(5_000);
    expect(message.usage.input_tokens).toBeLessThan(1_000);
    // A request sent from that block on continues the script at the next turn.
    const next = await client.beta.messages.create({
      model: 'm',
      max_tokens: 100,
      betas: ['compact-2026-01-12'],
      messages: [{ role: 'user', content: 'summarized before' }, { role: 'assistant', content: message.content as never }, { role: 'user', content: 'go on' }],
      ...compacting(5_000),
    });
    expect(next.content).toMatchObject([{ type: 'text', text: 'second' }]);
  });

  it('below the trigger, no compaction; without the beta header, a 400', async () => {
    const { client } = await start();
    const message = await client.beta.messages.create({ model: 'm', max_tokens: 100, betas: ['compact-2026-01-12'], messages: [{ role: 'user', content: 'short' }], ...compacting(5_000) });
    expect(message.content).toMatchObject([{ type: 'text', text: 'first' }]);
    await expect(client.messages.create({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'short' }], ...compacting(5_000) } as never)).rejects.toThrow(/compact-2026-01-12/);
  });

  it('a prompt past the context window, the compaction or task budget of an endpoint that refuses them: 400s naming them', async () => {
    const { client } = await start({ contextWindow: 1_000, compaction: false, taskBudget: false });
    await expect(client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: long }] })).rejects.toThrow(/prompt is too long: \d+ tokens > 1000 maximum/);
    const short = { model: 'm', max_tokens: 10, messages: [{ role: 'user' as const, content: 'short' }] };
    await expect(client.beta.messages.create({ ...short, betas: ['compact-2026-01-12'], ...compacting(5_000) })).rejects.toThrow(/context_management: Extra inputs/);
    const budget = { output_config: { task_budget: { type: 'tokens', total: 10_000, remaining: 10_000 } } };
    await expect(client.beta.messages.create({ ...short, betas: ['task-budgets-2026-03-13'], ...budget } as never)).rejects.toThrow(/output_config.task_budget: Extra inputs/);
  });
});
