// Claude's server tools end to end, offline: the request carries their definitions, the scripted model answers
// with server_tool_use / web_search_tool_result blocks and pause_turn, the transcript keeps the blocks whole, and
// the searches are priced and counted by the budget guard.
import { describe, expect, it } from 'vitest';
import { getTranscript } from '../../src/client/index.js';
import { costUsd, priceFor, WEB_SEARCH_USD_PER_1000 } from '../../src/core/pricing.js';
import type { MessageParam } from '../../src/core/types.js';
import { franceDemoScript, reply, serverToolUse, text, webSearchResult, type ReplyTurn } from '../../src/scripted/index.js';
import { useSharedAgent, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();
// One worker for all the file's tests.
const agents = useSharedAgent(env);

const USAGE = { input_tokens: 1000, output_tokens: 100 };
/** A search that pauses the turn (the server-side loop hit its iteration limit), then one more search and the answer. */
const PAUSED: ReplyTurn = {
  ...reply(
    [
      text('Let me search.'),
      serverToolUse('web_search', { query: 'population of France' }),
      webSearchResult([{ url: 'https://www.insee.fr/en/statistiques', title: 'INSEE: population' }]),
    ],
    'pause_turn',
  ),
  usage: USAGE,
};
const ANSWER: ReplyTurn = {
  ...reply(
    [
      serverToolUse('web_search', { query: 'France population 2025' }),
      webSearchResult([{ url: 'https://www.insee.fr/en/statistiques/2025', title: 'INSEE 2025' }]),
      text('France has about 68,606,000 people.'),
    ],
    'end_turn',
  ),
  usage: USAGE,
};
const SERVER_TOOLS = { tools: ['web_search' as const], webSearchMaxUses: 3, allowedDomains: ['insee.fr'] };

describe('server tools (web_search)', () => {
  it('sends the web_search definition, resumes after pause_turn with the conversation as it is, keeps the blocks whole, and prices the searches', async () => {
    await agents.with({ script: [PAUSED, ANSWER] }, async (h) => {
      const result = await h.run('how many people live in France?', { tools: ['calculator'], serverTools: SERVER_TOOLS });
      expect(result).toMatchObject({ status: 'completed', text: 'France has about 68,606,000 people.', steps: 2, toolCalls: 0 });

      // The request: the client tool and the newest web_search server tool the SDK types, with its options.
      const first = h.model.requests[0].body as { tools: unknown[]; messages: MessageParam[] };
      expect(first.tools).toEqual([
        expect.objectContaining({ name: 'calculator' }),
        { type: 'web_search_20260318', name: 'web_search', max_uses: 3, allowed_domains: ['insee.fr'] },
      ]);
      // After pause_turn the conversation goes back as it is: the paused turn, untouched, is the last message.
      const second = h.model.requests[1].body as { messages: Array<{ role: string; content: unknown }> };
      expect(h.model.requests.map((r) => [r.turn, r.status])).toEqual([
        [0, 200],
        [1, 200],
      ]);
      expect(second.messages).toHaveLength(2);
      expect(second.messages[1].role).toBe('assistant');

      const paused = [
        { type: 'text', text: 'Let me search.' },
        { type: 'server_tool_use', id: 'srvtoolu_0_1', name: 'web_search', input: { query: 'population of France' }, caller: { type: 'direct' } },
        {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_0_1',
          caller: { type: 'direct' },
          content: [
            {
              type: 'web_search_result',
              url: 'https://www.insee.fr/en/statistiques',
              title: 'INSEE: population',
              page_age: null,
              encrypted_content: Buffer.from('scripted:https://www.insee.fr/en/statistiques').toString('base64'),
            },
          ],
        },
      ];
      expect(second.messages[1].content).toEqual(
        // The request marks the last block for prompt caching; the stored transcript never has the marker.
        [...paused.slice(0, 2), { ...paused[2], cache_control: { type: 'ephemeral' } }],
      );
      const transcript = await getTranscript(env.client, result.workflowId);
      expect(transcript).toHaveLength(3);
      expect(transcript[1]).toEqual({ role: 'assistant', content: paused });
      expect(transcript[2].content).toEqual([
        expect.objectContaining({ type: 'server_tool_use', id: 'srvtoolu_1_0', name: 'web_search' }),
        expect.objectContaining({ type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1_0' }),
        { type: 'text', text: 'France has about 68,606,000 people.' },
      ]);

      // Two searches, counted and priced: $10 per 1,000 on top of the tokens.
      expect(result.usage.server_tool_use).toEqual({ web_search_requests: 2, web_fetch_requests: 0 });
      const price = priceFor('claude-sonnet-5-5')!;
      const tokensOnly = 2 * costUsd({ ...USAGE, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, price);
      expect(result.costUsd).toBeCloseTo(tokensOnly + (2 * WEB_SEARCH_USD_PER_1000) / 1000, 9);
      expect(result.costUsd! - tokensOnly).toBeCloseTo(0.02, 9);
    });
  }, 60_000);

  it('the budget guard counts the searches: a call whose tokens fit but whose search does not stops the run', async () => {
    await agents.with({ script: [PAUSED, ANSWER] }, async (h) => {
      // The first call's tokens cost $0.003 and its search $0.01: over a $0.01 budget only with the search.
      const result = await h.run('how many people live in France?', { tools: ['calculator'], serverTools: SERVER_TOOLS, budgetUsd: 0.01 });
      expect(result).toMatchObject({ status: 'stopped', guard: 'budget', steps: 1 });
      expect(result.costUsd).toBeCloseTo(0.013, 9);
      expect(result.error).toMatch(/cost budget spent/);
      expect(h.model.requests).toHaveLength(1);
    });
  }, 60_000);

  it('the France demo runs on the web_search server tool (scripted), with the calculator as the only client tool', async () => {
    await agents.with({ script: franceDemoScript }, async (h) => {
      const result = await h.run('Search for the population of France and calculate what 15% of that number is', {
        tools: ['calculator'],
        serverTools: { tools: ['web_search'] },
      });
      expect(result).toMatchObject({ status: 'completed', steps: 2, toolCalls: 1 });
      expect(result.text).toBe('France has about 68,606,000 people; 15% of that is 10,290,900.');
      expect(result.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 0 });
      const transcript = await getTranscript(env.client, result.workflowId);
      expect((transcript[1].content as Array<{ type: string }>).map((b) => b.type)).toEqual([
        'text',
        'server_tool_use',
        'web_search_tool_result',
        'text',
        'tool_use',
      ]);
    });
  }, 60_000);
});
