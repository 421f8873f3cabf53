// The dev server this test process talks to: global-setup starts one per process (vitest's maxWorkers), and a
// process's VITEST_POOL_ID (1..maxWorkers) says which is its own, so no two test files share a server at a time.
import { inject } from 'vitest';

export function testServerAddress(): string {
  const addresses = inject('temporalAddresses');
  const pool = Number(process.env.VITEST_POOL_ID ?? '1');
  return addresses[(Math.max(pool, 1) - 1) % addresses.length]!;
}
