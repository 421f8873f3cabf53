import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-runtime.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
