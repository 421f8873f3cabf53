// The dev server this test process talks to: global-setup starts one per process (vitest's maxWorkers), and a
// process's VITEST_POOL_ID (1..maxWorkers) says which is its own, so no two test files share a server at a time.
import { inject } from 'vitest';

export function testServerAddress(): string {
  const addresses = inject('temporalAddresses');
  return addresses[ownServer(addresses.length)]!;
}

/** The Prometheus metrics of this process's dev server (`/metrics`). */
export function testServerMetricsUrl(): string {
  const ports = inject('temporalMetricsPorts');
  const port = ports[ownServer(ports.length)];
  if (!port) throw new Error('the test dev server has no metrics port');
  return `http://${testServerAddress().replace(/:\d+$/, '')}:${port}/metrics`;
}

function ownServer(servers: number): number {
  const pool = Number(process.env.VITEST_POOL_ID ?? '1');
  return (Math.max(pool, 1) - 1) % servers;
}
