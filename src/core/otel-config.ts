// Whether and how this process exports traces, read from the standard OpenTelemetry variables: off unless one of
// them asks for it, so a worker with no OTEL_* set does no tracing work at all.
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingConfig {
  protocol: OtlpProtocol;
  /** Prompt, reply and tool input/output on the spans (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true),
   * never when payloads are encrypted: the caller ANDs this with "the data converter does not encrypt". */
  captureContent: boolean;
  serviceName: string;
}

export const DEFAULT_SERVICE_NAME = 'durable-agent';
export const CAPTURE_CONTENT_VAR = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';

/** Bad OpenTelemetry settings: the message names the variable and the fix. */
export class OtelConfigError extends Error {
  override name = 'OtelConfigError';
}

/** The tracing this environment asks for, or null (none: no endpoint is set, OTEL_TRACES_EXPORTER=none, or
 * OTEL_SDK_DISABLED=true). Throws OtelConfigError on a value it cannot honour. */
export function tracingConfigFromEnv(env: Record<string, string | undefined>): TracingConfig | null {
  const value = (name: string) => env[name]?.trim() || undefined;
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const exporter = value('OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter === 'none') return null;
  if (exporter !== undefined && exporter !== 'otlp') {
    throw new OtelConfigError(`OTEL_TRACES_EXPORTER=${exporter} is not supported: use otlp (or none to turn tracing off)`);
  }
  const endpoint = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? value('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!endpoint && exporter === undefined) return null;
  if (endpoint && !/^https?:\/\//i.test(endpoint)) {
    throw new OtelConfigError(`OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (got "${endpoint}"), e.g. http://localhost:4318`);
  }
  const protocolVar = value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = value(protocolVar) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new OtelConfigError(`${protocolVar}=${protocol} is not supported: use http/protobuf (the default) or http/json (an OTLP/HTTP endpoint, port 4318)`);
  }
  const capture = value(CAPTURE_CONTENT_VAR)?.toLowerCase();
  if (capture !== undefined && capture !== 'true' && capture !== 'false') {
    throw new OtelConfigError(`${CAPTURE_CONTENT_VAR} must be true or false (got "${capture}")`);
  }
  return { protocol, captureContent: capture === 'true', serviceName: value('OTEL_SERVICE_NAME') ?? DEFAULT_SERVICE_NAME };
}
