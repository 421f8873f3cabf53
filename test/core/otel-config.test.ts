import { describe, expect, it } from 'vitest';
import { OtelConfigError, tracingConfigFromEnv } from '../../src/core/otel-config.js';

describe('tracingConfigFromEnv', () => {
  it('is off when no OpenTelemetry variable asks for traces', () => {
    expect(tracingConfigFromEnv({})).toBeNull();
    expect(tracingConfigFromEnv({ OTEL_SERVICE_NAME: 'x' })).toBeNull();
  });

  it('is on with an OTLP endpoint: http/protobuf by default, service durable-agent, content off', () => {
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' })).toEqual({
      protocol: 'http/protobuf',
      captureContent: false,
      serviceName: 'durable-agent',
    });
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' })?.protocol).toBe('http/protobuf');
    expect(tracingConfigFromEnv({ OTEL_TRACES_EXPORTER: 'otlp' })).not.toBeNull(); // the exporter's default endpoint
  });

  it('reads the protocol, the service name and the content opt-in', () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'agents',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE',
    };
    expect(tracingConfigFromEnv(env)).toEqual({ protocol: 'http/json', captureContent: true, serviceName: 'agents' });
    expect(tracingConfigFromEnv({ ...env, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })?.protocol).toBe('http/protobuf');
  });

  it('is off with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true, even with an endpoint', () => {
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
  });

  it('refuses what it cannot honour with a line naming the variable and the fix', () => {
    const bad = (env: Record<string, string>) => () => tracingConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318', ...env });
    expect(bad({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(new OtelConfigError('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: use http/protobuf (the default) or http/json (an OTLP/HTTP endpoint, port 4318)'));
    expect(bad({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER=zipkin is not supported: use otlp/);
    expect(bad({ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' })).toThrow(/must be an http:\/\/ or https:\/\/ URL \(got "localhost:4318"\)/);
    expect(bad({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'yes' })).toThrow(/must be true or false \(got "yes"\)/);
  });
});
