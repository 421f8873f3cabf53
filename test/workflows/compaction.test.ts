// Jobs that outlive the context window: server-side compaction against a Messages API stand-in that enforces a
// 40,000-token window (a longer prompt is a 400, as on the real API) and compacts on request.
import { describe, expect, it } from 'vitest';
import { getStatus, getTranscript } from '../../src/client/index.js';
import { CLIENT_SUMMARY_PREFIX, COMPACTED_OPENING, COMPACTION_INSTRUCTION } from '../../src/core/compaction.js';
import { promptTokens } from '../../src/scripted/prompt-cache.js';
import { reply, text, toolUse, type MessagesRequestBody } from '../../src/scripted/index.js';
import { defineTool } from '../../src/tools/types.js';
import { useSharedAgent, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();

const TURNS = 60;
const WINDOW = 40_000;
/** 8 KB a call, different each time: about 2,000 tokens. */
const page = (n: number) => `page ${n}: ${'lorem ipsum dolor sit amet '.repeat(303)}`.slice(0, 8192);
const readPage = defineTool<{ n: number }>({
  name: 'read_page',
  description: 'Reads page n of the document.',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  async execute({ n }) {
    return page(n);
  },
});
// One worker for all the file's tests (each says what window the model has, and whether it compacts).
const agents = useSharedAgent(env, { tools: [readPage] });
const job = (_req: MessagesRequestBody, turn: number) =>
  turn < TURNS ? reply([text(`Reading page ${turn}.`), toolUse('read_page', { n: turn })]) : reply([text(`Read all ${TURNS} pages.`)]);

describe('server-side compaction', () => {
  it('a 60-turn job with 8 KB tool results completes within a 40,000-token window; the transcript keeps every result', async () => {
    await agents.with({ script: job, tools: [readPage], modelOptions: { contextWindow: WINDOW } }, async ({ run, model, env }) => {
      const result = await run('read the whole document', { maxSteps: 100, compactAt: 30_000 });
      expect(result).toMatchObject({ status: 'completed', steps: TURNS + 1, toolCalls: TURNS, text: `Read all ${TURNS} pages.` });
      // No request was refused and none exceeded the window.
      expect(model.requests.map((r) => r.status)).toEqual(Array(TURNS + 1).fill(200));
      const bodies = model.requests.map((r) => r.body as MessagesRequestBody);
      const largest = Math.max(...bodies.map(promptTokens));
      expect(largest).toBeLessThanOrEqual(WINDOW);
      // Each request asked for compaction with the beta, and those after a compaction start from its block.
      expect(model.requests.every((r) => String(r.headers['anthropic-beta']).includes('compact-2026-01-12'))).toBe(true);
      const transcript = await getTranscript(env.client, result.workflowId);
      const compactedAt = transcript.flatMap((m, i) => (m.role === 'assistant' && Array.isArray(m.content) && m.content[0]?.type === ('compaction' as string) ? [i] : []));
      expect(compactedAt.length).toBeGreaterThanOrEqual(3);
      const compacting = bodies.filter((b) => JSON.stringify(b.messages[1]?.content ?? '').includes('"type":"compaction"'));
      expect(compacting.length).toBeGreaterThan(TURNS / 2);
      for (const b of compacting) expect(b.messages[0]).toEqual({ role: 'user', content: COMPACTED_OPENING });
      // The transcript holds all 60 tool results whole, and the task: nothing was removed.
      const results = transcript.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result') : []));
      expect(results.map((b) => (b as { content: unknown }).content)).toEqual(Array.from({ length: TURNS }, (_, n) => page(n)));
      expect(transcript[0]).toMatchObject({ role: 'user', content: 'read the whole document' });
      // About 130,000 tokens of conversation in all, more than three windows.
      expect(promptTokens({ model: 'm', max_tokens: 1, messages: transcript } as MessagesRequestBody)).toBeGreaterThan(120_000);
      // status counts the compactions and shows the current prompt; their usage is in the job's tokens.
      const status = await getStatus(env.client, result.workflowId);
      expect(status.view).toMatchObject({ compactions: compactedAt.length });
      expect(status.view?.promptTokens).toBeLessThan(WINDOW);
      // The compactions' own usage (reported apart by the API) is counted. A compacting call's own usage is the
      // small prompt after its summary; its compaction read the whole prompt sent. Without the compactions, the
      // job's input would be less than the prompts sent.
      const promptsSent = bodies.reduce((sum, b) => sum + promptTokens(b), 0);
      const { input_tokens, cache_read_input_tokens, cache_creation_input_tokens } = result.usage;
      expect(input_tokens + cache_read_input_tokens + cache_creation_input_tokens).toBeGreaterThan(promptsSent);
    });
  }, 180_000);

  it('against an endpoint that refuses the compaction parameter, the same job completes through client-side compaction', async () => {
    await agents.with({ script: job, tools: [readPage], modelOptions: { contextWindow: WINDOW, compaction: false } }, async ({ run, model, env }) => {
      const result = await run('read the whole document', { maxSteps: 200, compactAt: 30_000 });
      expect(result).toMatchObject({ status: 'completed', toolCalls: TURNS, text: `Read all ${TURNS} pages.` });
      // One refusal, remembered: no later request asks for compaction again.
      const refused = model.requests.filter((r) => r.status === 400);
      expect(refused).toHaveLength(1);
      const after = model.requests.slice(model.requests.indexOf(refused[0]) + 1);
      expect(after.every((r) => r.status === 200 && !('context_management' in (r.body as object)))).toBe(true);
      const bodies = after.map((r) => r.body as MessagesRequestBody);
      expect(Math.max(...bodies.map(promptTokens))).toBeLessThanOrEqual(WINDOW);
      // Each compaction was one summary call with tools disabled; later requests open with its summary.
      const summaryCalls = bodies.filter((b) => JSON.stringify(b.messages.at(-1)).includes(COMPACTION_INSTRUCTION));
      expect(summaryCalls.length).toBeGreaterThanOrEqual(3);
      for (const b of summaryCalls) expect(b.tool_choice).toEqual({ type: 'none' });
      expect(bodies.filter((b) => JSON.stringify(b.messages[0].content).includes(CLIENT_SUMMARY_PREFIX)).length).toBeGreaterThan(TURNS / 2);
      expect(result.steps).toBe(TURNS + 1 + summaryCalls.length);
      // The transcript holds every message (no summary in it) and all 60 results whole.
      const transcript = await getTranscript(env.client, result.workflowId);
      expect(transcript).toHaveLength(2 * TURNS + 2);
      const results = transcript.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result') : []));
      expect(results.map((b) => (b as { content: unknown }).content)).toEqual(Array.from({ length: TURNS }, (_, n) => page(n)));
      const status = await getStatus(env.client, result.workflowId);
      expect(status.view?.compactions).toBe(summaryCalls.length);
      expect(status.view?.compactionLog?.every((c) => c.clientSide && c.tokensBefore >= 30_000)).toBe(true);
    });
  }, 180_000);

  it('without compaction the same job stops at the window with a clear status', async () => {
    await agents.with({ script: job, tools: [readPage], modelOptions: { contextWindow: WINDOW } }, async ({ run }) => {
      const result = await run('read the whole document', { maxSteps: 100, compaction: false });
      expect(result.status).toBe('failed');
      expect(result.error).toMatch(/prompt is too long/);
      expect(result.toolCalls).toBeLessThan(TURNS);
    });
  }, 120_000);
});
