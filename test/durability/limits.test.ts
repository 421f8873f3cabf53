// Payload and context limits: big tool outputs are truncated with a note, an oversized result fails once
// (never an endless retry), and old tool results are cleared from requests near the context window.
import { describe, expect, it } from 'vitest';
import { CLEARED_TOOL_RESULT } from '../../src/activities/request.js';
import { getStatus, getTranscript } from '../../src/client/index.js';
import type { MessageParam } from '../../src/core/types.js';
import { reply, text, toolUse, type MessagesRequestBody } from '../../src/scripted/index.js';
import { defineTool } from '../../src/tools/types.js';
import { builtinTools } from '../../src/tools/registry.js';
import { useSharedAgent, useTestEnv } from '../helpers/harness.js';

const env = useTestEnv();

const bigOutput = defineTool<{ size: number }>({
  name: 'big_output',
  description: 'Returns a long text.',
  inputSchema: { type: 'object', properties: { size: { type: 'number' } }, required: ['size'] },
  execute: async ({ size }) => 'y'.repeat(size),
});

// One worker for all the file's tests.
const agents = useSharedAgent(env, { tools: [...builtinTools, bigOutput] });

type ResultBlock = { type: string; content: string; is_error?: boolean };
const resultsOf = (body: unknown, index: number) =>
  ((body as MessagesRequestBody).messages[index].content as unknown as ResultBlock[]).filter((b) => b.type === 'tool_result');

describe('tool output limit', () => {
  it('truncates output above maxToolOutputChars and tells the model how much was cut', async () => {
    const script = [reply([toolUse('big_output', { size: 50_000 })]), reply([text('ok')])];
    await agents.with({ script, tools: [bigOutput] }, async ({ run, model }) => {
      const result = await run('big', { tools: ['big_output'], maxToolOutputChars: 1000 });
      expect(result.status).toBe('completed');
      const [block] = resultsOf(model.requests.filter((r) => r.status === 200)[1].body, 2);
      expect(block.content.startsWith('y'.repeat(1000))).toBe(true);
      expect(block.content).not.toContain('y'.repeat(1001));
      expect(block.content).toMatch(/output truncated: 49,000 of 50,000 characters were cut/);
    });
  });
});

describe('payload limit', () => {
  it('fails the run at once with a clear error when a model reply cannot fit in one Temporal payload', async () => {
    const script = [reply([text('z'.repeat(2_000_000))])];
    await agents.with({ script }, async ({ run, model }) => {
      const result = await run('huge reply');
      expect(result.status).toBe('failed');
      expect(result.error).toMatch(/over the 1800000-byte limit of one Temporal payload/);
      expect(model.requests).toHaveLength(1); // not retried
    });
  });
});

describe('context management', () => {
  it('clears old tool results from requests once a prompt reaches the threshold, keeping the stored transcript', async () => {
    // Each reply reports a big prompt, so the threshold is crossed from the first call on.
    const script = (_req: MessagesRequestBody, turn: number) =>
      turn < 6
        ? { ...reply([toolUse('big_output', { size: 20 + turn })]), usage: { input_tokens: 5000 } }
        : reply([text('done')]);
    await agents.with({ script, tools: [bigOutput] }, async ({ run, model, env }) => {
      const result = await run('many tools', { tools: ['big_output'], contextClearAtTokens: 4000 });
      expect(result.status).toBe('completed');
      const last = model.requests.filter((r) => r.status === 200).at(-1)!.body as MessagesRequestBody;
      const cleared = last.messages.flatMap((m, i) =>
        typeof m.content === 'string' ? [] : (m.content as unknown as ResultBlock[]).filter((b) => b.type === 'tool_result').map((b) => ({ i, b })),
      );
      const placeholders = cleared.filter(({ b }) => b.content === CLEARED_TOOL_RESULT);
      expect(placeholders.length).toBeGreaterThan(0);
      // The most recent results stay visible.
      expect(cleared.at(-1)!.b.content).toBe('y'.repeat(25));
      // The stored transcript is never rewritten.
      const transcript: MessageParam[] = await getTranscript(env.client, result.workflowId);
      expect(JSON.stringify(transcript)).not.toContain(CLEARED_TOOL_RESULT);
      const status = await getStatus(env.client, result.workflowId);
      expect(status.view?.clearedUpTo).toBeGreaterThan(0);
    });
  });
});

describe('continue-as-new with a large task', () => {
  it('carries a 900 KB task once, the whole input measured: the run continues as new and completes', async () => {
    const task = `Summarise this log:\n${'log line 42: ok\n'.repeat(56_000)}`; // about 900 KB
    const script = (_body: MessagesRequestBody, turn: number) =>
      turn < 5 ? reply([toolUse('big_output', { size: 150_000 + turn })]) : reply([text('summarised')]);
    await agents.with({ script, tools: [bigOutput] }, async ({ run, env }) => {
      const result = await run(task, { tools: ['big_output'], maxToolOutputChars: 300_000, continueAsNewAfterSteps: 4, maxSteps: 20 });
      expect(result).toMatchObject({ status: 'completed', text: 'summarised', runsUsed: 2 });
      // The continued run's input holds the task once: in the carried transcript.
      const history = await env.client.workflow.getHandle(result.workflowId).fetchHistory();
      const input = env.client.options.loadedDataConverter.payloadConverter.fromPayload<{ task: string; carried: { messages: MessageParam[] } }>(
        history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0],
      );
      expect(input.task).toBe('');
      expect(input.carried.messages[0].content).toBe(task);
      const transcript = await getTranscript(env.client, result.workflowId);
      expect(transcript[0].content).toBe(task);
    });
  }, 120_000);
});
