// Reads traces back from a real Jaeger's query API (the HTTP API its UI uses), as the spans the in-test OTLP
// receiver keeps (ReceivedSpan), so the same assertions and ancestorsOf work on both.
import type { ReceivedSpan } from './otlp-receiver.js';

interface JaegerTag {
  key: string;
  type: string;
  value: unknown;
}
interface JaegerApiSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references?: Array<{ refType: string; traceID: string; spanID: string }>;
  tags?: JaegerTag[];
  processID: string;
}
interface JaegerApiTrace {
  traceID: string;
  spans: JaegerApiSpan[];
  processes: Record<string, { serviceName: string }>;
}

async function get(url: string): Promise<JaegerApiTrace[]> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (res.status === 404) return [];
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: JaegerApiTrace[] | null }).data ?? [];
}

function toSpan(trace: JaegerApiTrace, s: JaegerApiSpan): ReceivedSpan {
  const attributes = Object.fromEntries((s.tags ?? []).map((t) => [t.key, t.value]));
  return {
    traceId: s.traceID,
    spanId: s.spanID,
    parentSpanId: s.references?.find((r) => r.refType === 'CHILD_OF')?.spanID ?? '',
    name: s.operationName,
    attributes,
    serviceName: trace.processes[s.processID]?.serviceName,
    statusCode: attributes['otel.status_code'] === 'ERROR' ? 2 : 0,
  };
}

/** The spans of one trace (none while Jaeger has not stored it yet). */
export async function jaegerTrace(queryUrl: string, traceId: string): Promise<ReceivedSpan[]> {
  return (await get(`${queryUrl}/api/traces/${traceId}`)).flatMap((t) => t.spans.map((s) => toSpan(t, s)));
}

/** The ids of the traces that have a span of `service` in the last hour. */
export async function jaegerTraceIds(queryUrl: string, service: string): Promise<string[]> {
  return (await get(`${queryUrl}/api/traces?service=${encodeURIComponent(service)}&lookback=1h&limit=100`)).map((t) => t.traceID);
}
