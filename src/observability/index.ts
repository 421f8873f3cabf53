// `durable-agent/observability`: traces and metrics (docs/observability.md). The tracer provider the OTEL_* variables
// describe (or one from a config of your own), the agent's Prometheus metrics, and a server for them.
//
//   import { AgentMetrics, agentTracingFromEnv, serveMetrics } from 'durable-agent/observability';
//   const metrics = new AgentMetrics();
//   const plugin = new AgentPlugin({ metrics, tracing: agentTracingFromEnv() });
//   await serveMetrics({ port: 9464, metrics });
export { agentTracingFromEnv, createTracing, type AgentTracing } from './tracing.js';
export { AgentMetrics } from './metrics.js';
export { serveMetrics, type MetricsServer, type MetricsServerOptions } from './metrics-server.js';
export { OtelConfigError, type OtlpProtocol, type TracingConfig } from '../core/otel-config.js';
