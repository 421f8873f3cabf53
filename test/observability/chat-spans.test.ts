// One model call, one `chat` span: the worker's own `chat <model>` span, not also the Anthropic SDK's
// `anthropic.messages.create` (which carries `gen_ai.operation.name = chat` too, so a GenAI backend would count
// every call and its tokens twice). Counted by the attribute a backend counts by, not by span name. Issue 42, item 5.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { franceDemoScript } from '../../src/scripted/index.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';
import { exportTracesTo, runFromTracedCaller } from '../helpers/traced-run.js';
import { startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

const env = useTestEnv();
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  exportTracesTo(receiver.url, 'http/json', 'chat-spans-test');
});
afterAll(async () => {
  await receiver?.close();
});

describe('GenAI spans of a run', () => {
  it('a traced France run has exactly 3 chat, 2 execute_tool and 1 invoke_agent spans by gen_ai.operation.name', async () => {
    await withAgent(env, { script: franceDemoScript }, async (h) => {
      const { traceId, settings, result } = await runFromTracedCaller(env, h);
      const inTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
      const operation = (name: string) => inTrace().filter((s) => s.attributes['gen_ai.operation.name'] === name);
      // The run's span is exported when the run ends, after its calls' spans: once it is in, the trace is.
      await vi.waitFor(() => expect(operation('invoke_agent')).toHaveLength(1), { timeout: 15_000, interval: 100 });
      await vi.waitFor(() => expect(operation('execute_tool')).toHaveLength(2), { timeout: 15_000, interval: 100 });
      const chats = operation('chat');
      expect(chats.map((s) => s.name)).toEqual(Array(3).fill(`chat ${settings.model}`));
      expect(result.steps).toBe(3);
      // Nothing else in the trace is a model call: no span of the SDK's own.
      expect(inTrace().filter((s) => s.name.startsWith('anthropic.'))).toEqual([]);
      const tokens = chats.reduce((n, s) => n + (s.attributes['gen_ai.usage.output_tokens'] as number), 0);
      expect(tokens).toBe(result.usage.output_tokens);
    });
  });
});
