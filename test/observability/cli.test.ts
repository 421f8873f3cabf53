// The CLI and OpenTelemetry: `start` with a TRACEPARENT continues the caller's trace (the run's spans join it), and
// OTEL_* values it cannot honour are one line and exit 2, before anything starts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import { franceDemoScript } from '../../src/scripted/index.js';
import { expectUsageError, useCli } from '../helpers/cli.js';
import { useTestEnv, withAgent } from '../helpers/harness.js';
import { ancestorsOf, startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

const cli = useCli();
const env = useTestEnv();
let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
});
afterAll(async () => {
  await receiver?.close();
});

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('the CLI and traces', () => {
  it('start with TRACEPARENT in its environment continues that trace: its StartWorkflow span and the run\'s spans join it', async () => {
    const s = cli.session({ TRACEPARENT: `00-${TRACE_ID}-${CALLER_SPAN}-01` });
    await withAgent(env, { script: franceDemoScript, taskQueue: s.taskQueue }, async () => {
      const id = await s.startedId(['What is the population of France, and what is 15% of it?']);
      expect((await getAgentResult(env.client, id)).status).toBe('completed');
      await vi.waitFor(() => expect(receiver.spans.filter((x) => x.traceId === TRACE_ID && x.name.startsWith('invoke_agent'))).toHaveLength(1), { timeout: 15_000, interval: 100 });
      const spans = receiver.spans.filter((x) => x.traceId === TRACE_ID);
      const start = spans.find((x) => x.name === 'StartWorkflow:agentWorkflow')!;
      expect(start.parentSpanId).toBe(CALLER_SPAN);
      const agent = spans.find((x) => x.name.startsWith('invoke_agent'))!;
      expect(ancestorsOf(agent, spans).map((a) => a.name)).toEqual(['RunWorkflow:agentWorkflow', 'StartWorkflow:agentWorkflow']);
      expect(spans.filter((x) => x.name.startsWith('chat '))).toHaveLength(3);
    });
  });

  it('OTEL_* values it cannot honour are one line and exit 2', async () => {
    const s = cli.session({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expectUsageError(await s.cli(['status', 'no-such-run']), /^error: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: use http\/protobuf \(the default\) or http\/json/m);
    expectUsageError(await s.cli(['worker', '--scripted']), /OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported/);
    expectUsageError(await s.cli(['worker', '--metrics-port', '0']), /--metrics-port/);
  });
});
