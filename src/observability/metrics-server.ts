// `GET /metrics` for Prometheus, on one port: the agent's metrics (AgentMetrics) followed by Temporal's own worker
// metrics, which its runtime serves on a loopback port of its own (Runtime telemetryOptions prometheus
// bindAddress) and this server reads at each scrape. One scrape target per worker.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentMetrics } from './metrics.js';

export interface MetricsServerOptions {
  /** 0: any free port. */
  port: number;
  /** Default 0.0.0.0: Prometheus scrapes from another host. The metrics hold no content and no secrets. */
  host?: string;
  metrics: AgentMetrics;
  /** Where Temporal's runtime serves its worker metrics (e.g. http://127.0.0.1:9465/metrics), appended to ours. */
  temporalMetricsUrl?: string;
}

export interface MetricsServer {
  /** The port it listens on. */
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function serveMetrics(options: MetricsServerOptions): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '/').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are served at GET /metrics\n');
      return;
    }
    void exposition(options).then(
      (text) => res.writeHead(200, { 'content-type': options.metrics.registry.contentType }).end(text),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err.message}\n`),
    );
  });
  const host = options.host ?? '0.0.0.0';
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new Error(`the metrics port ${options.port} is in use: choose another with --metrics-port`) : err),
    );
    server.listen(options.port, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function exposition(options: MetricsServerOptions): Promise<string> {
  const ours = await options.metrics.text();
  if (!options.temporalMetricsUrl) return ours;
  try {
    const res = await fetch(options.temporalMetricsUrl, { signal: AbortSignal.timeout(5_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return `${ours}\n${await res.text()}`;
  } catch (err) {
    // Ours are still worth a scrape; the comment says why Temporal's are missing.
    return `${ours}\n# Temporal's worker metrics could not be read from ${options.temporalMetricsUrl}: ${(err as Error).message}\n`;
  }
}
