import { defineConfig } from 'vitest/config'; export default defineConfig({ test: { include: ['test/**/*.test.ts'], exclude: ['test/integration/**', 'test/e2e/**'], pool: 'forks' } });
