// An OTLP/HTTP trace receiver in the test process: it accepts what an OTLP exporter posts to /v1/traces, in
// http/json or http/protobuf (decoded with the OTLP proto types the exporter itself ships), and keeps the spans.
import { createRequire } from 'node:module';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  serviceName: unknown;
  /** 2: error. */
  statusCode: number;
}

export interface OtlpReceiver {
  /** The endpoint to give OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  /** The content type of each request received. */
  contentTypes: string[];
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string | { toString(): string };
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
}
interface OtlpKeyValue {
  key: string;
  value?: OtlpValue;
}
interface OtlpRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{ traceId: unknown; spanId: unknown; parentSpanId?: unknown; name: string; attributes?: OtlpKeyValue[]; status?: { code?: number } }>;
    }>;
  }>;
}

const require = createRequire(import.meta.url);
type Decoder = { decode(b: Uint8Array): unknown; toObject(m: unknown, o: object): OtlpRequest };
const protoRequest = (): Decoder =>
  require('@opentelemetry/otlp-transformer/build/src/generated/root.js').opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

function valueOf(v: OtlpValue | undefined): unknown {
  if (!v) return undefined;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(String(v.intValue));
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

/** Ids arrive as hex strings (JSON) or bytes (protobuf). */
function hex(id: unknown): string {
  if (!id) return '';
  if (typeof id === 'string') return id;
  return Buffer.from(id as Uint8Array).toString('hex');
}

export function spansOf(body: OtlpRequest): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const resource = attributesOf(rs.resource?.attributes);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: hex(s.traceId),
        spanId: hex(s.spanId),
        parentSpanId: hex(s.parentSpanId),
        name: s.name,
        attributes: attributesOf(s.attributes),
        serviceName: resource['service.name'],
        statusCode: s.status?.code ?? 0,
      })),
    );
  });
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      contentTypes.push(type);
      const body = Buffer.concat(chunks);
      if (req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const decoded: OtlpRequest = type.includes('json')
        ? JSON.parse(body.toString('utf8'))
        : protoRequest().toObject(protoRequest().decode(body), { longs: String, defaults: false });
      spans.push(...spansOf(decoded));
      res.writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : 'application/x-protobuf' }).end(type.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The span's ancestors, nearest first, among `spans`. */
export function ancestorsOf(span: ReceivedSpan, spans: ReceivedSpan[]): ReceivedSpan[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const chain: ReceivedSpan[] = [];
  for (let p = byId.get(span.parentSpanId); p && chain.length < 50; p = byId.get(p.parentSpanId)) chain.push(p);
  return chain;
}
