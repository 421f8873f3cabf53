// `serve` over a client with payload encryption: what it answers is plain text (it decodes with the keys), while
// the run's history, as the server stores it, holds none of it.
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentDataConverter } from '../../src/codec/data-converter.js';
import { reply, text, toolUse } from '../../src/scripted/index.js';
import { openTestEnv, withAgent, type TestEnv } from '../helpers/harness.js';
import { findPlainText, rawHistory } from '../helpers/plaintext.js';
import { readEvents } from './sse.js';
import { auth, call, openApi } from './api-helpers.js';

const SECRET = { task: 'the-task-secret-7f3a', answer: 'the-answer-secret-9b1c' };
let env: TestEnv;
beforeAll(async () => {
  env = await openTestEnv(agentDataConverter({ AGENT_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` }));
});
afterAll(() => env?.close());

describe('serve with payload encryption', () => {
  it('answers the transcript, result and events decoded, and the stored history holds none of it in plain text', async () => {
    const script = [reply([text('computing'), toolUse('calculator', { expression: '6*7' }, 'toolu_enc')]), reply([text(`42, ${SECRET.answer}`)])];
    await withAgent(env, { script }, async (h) => {
      const api = await openApi(env, h.taskQueue);
      try {
        const id = (await call(api, 'POST', '/v1/runs', { task: `multiply: ${SECRET.task}`, tools: ['calculator'] })).json!.workflowId as string;
        expect((await call(api, 'GET', `/v1/runs/${id}/result?wait=30s`)).json).toMatchObject({ status: 'completed', text: `42, ${SECRET.answer}` });
        const { messages } = (await call(api, 'GET', `/v1/runs/${id}/transcript`)).json as { messages: Array<{ content: unknown }> };
        expect(messages[0].content).toBe(`multiply: ${SECRET.task}`);
        const events = await readEvents(`${api.url}/v1/runs/${id}/events`, auth());
        expect(events.find((e) => e.event === 'tool_call')?.data).toEqual({ toolUseId: 'toolu_enc', name: 'calculator', input: { expression: '6*7' } });
        expect(events.at(-1)?.data.text).toBe(`42, ${SECRET.answer}`);
        const raw = new Client({ connection: env.client.connection });
        expect(findPlainText(await rawHistory(raw, id), Object.values(SECRET))).toEqual([]);
      } finally {
        await api.close();
      }
    });
  });
});
