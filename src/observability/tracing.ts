// The process's OpenTelemetry tracing, set up from the standard OTEL_* variables (src/core/otel-config.ts): an
// OTLP/HTTP exporter (protobuf or JSON) behind a batch processor, registered as the global tracer provider so
// that Temporal's interceptors (@temporalio/interceptors-opentelemetry) and our own spans share it. Once per
// process; off when no variable asks for it.
import { trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { tracingConfigFromEnv, type TracingConfig } from '../core/otel-config.js';

/** What the worker's pieces need of the process's tracing. */
export interface AgentTracing {
  readonly config: TracingConfig;
  readonly tracer: Tracer;
  readonly resource: Resource;
  readonly spanProcessor: SpanProcessor;
  /** Exports what is buffered (a worker calls it when it stops). */
  flush(): Promise<void>;
}

let installed: AgentTracing | null | undefined;

/** The process's tracing as the environment configures it (null: off). Installed on first call. */
export function agentTracingFromEnv(env: NodeJS.ProcessEnv = process.env): AgentTracing | null {
  if (installed !== undefined) return installed;
  const config = tracingConfigFromEnv(env);
  installed = config ? createTracing(config, { register: true }) : null;
  return installed;
}

/** Tracing as `config` says. `register`: as the process's global tracer provider, propagator and context manager
 * (what Temporal's interceptors use); without it, only the returned tracer exports (tests). */
export function createTracing(config: TracingConfig, options: { register: boolean }): AgentTracing {
  // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME (the env detector), with our service name as the default.
  const resource = new Resource({ [ATTR_SERVICE_NAME]: config.serviceName }).merge(envDetectorSync.detect({}));
  // The exporters read the endpoint, headers, timeout and compression from the OTEL_EXPORTER_OTLP_* variables.
  const exporter = config.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtoExporter();
  const spanProcessor = new BatchSpanProcessor(exporter); // OTEL_BSP_* tune it
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  if (options.register) provider.register(); // W3C trace context, AsyncLocalStorage context: Temporal's interceptors use both
  const tracer = options.register ? trace.getTracer('durable-agent') : provider.getTracer('durable-agent');
  return { config, tracer, resource, spanProcessor, flush: () => provider.forceFlush() };
}
