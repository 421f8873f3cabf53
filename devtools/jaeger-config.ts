// The YAML config of a local Jaeger v2 (an OpenTelemetry collector distribution): an OTLP/HTTP receiver, in-memory
// storage, and the query service (HTTP API and UI) on the ports given, every listener on loopback, none of the
// all-in-one defaults' fixed ports (4317, 8888, 16685, ...), so several can run side by side.

export interface JaegerPorts {
  /** OTLP over HTTP: POST /v1/traces. */
  otlpHttp: number;
  /** The query service's HTTP API (/api/traces/{id}, /api/v3/...) and UI. */
  queryHttp: number;
  /** The query service's gRPC API (it always listens; given a port so it never takes the default 16685). */
  queryGrpc: number;
}

export interface JaegerConfigOptions {
  /** A built jaeger-ui (the folder holding its index.html): served by the query service instead of the
   * placeholder page the Go module carries. */
  uiAssets?: string;
  /** Spans kept in memory (oldest traces dropped first). */
  maxTraces?: number;
}

/** JSON is YAML: a quoted value can hold any path. */
const q = (s: string) => JSON.stringify(s);

export function jaegerConfig(ports: JaegerPorts, options: JaegerConfigOptions = {}): string {
  const ui = options.uiAssets ? `\n    ui:\n      assets_path: ${q(options.uiAssets)}` : '';
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    resource:
      service.name: jaeger
    metrics:
      level: none
    logs:
      level: warn

extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: ${options.maxTraces ?? 10000}
  jaeger_query:
    storage:
      traces: memstore
    enable_tracing: false
    http:
      endpoint: 127.0.0.1:${ports.queryHttp}
    grpc:
      endpoint: 127.0.0.1:${ports.queryGrpc}${ui}

receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.otlpHttp}

processors:
  batch:
    timeout: 100ms

exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}
