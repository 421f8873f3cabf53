import { defineConfig } from 'vitest/config';

// Benchmarks print their figures; they are not part of `npm test`.
export default defineConfig({
  test: { include: ['bench/**/*.bench.ts'], pool: 'forks', testTimeout: 600_000 },
});
