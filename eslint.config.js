// ESLint (flat config), run by `npm test` before vitest. Two rules matter here:
// - no floating promises (type-aware): an un-awaited promise in a workflow or an activity is a lost error or
//   a race; say `void` where it is meant;
// - the layering: workflow code (src/workflows, src/core) is replayed in Temporal's sandbox and must stay
//   deterministic, so it may not import Node built-ins or the packages that do I/O (type-only imports are
//   fine: they are erased).
import { builtinModules } from 'node:module';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const WORKFLOW_LAYER = 'workflow code (src/workflows, src/core) is replayed deterministically in Temporal\'s sandbox';

const ioPackage = (name, why) => ({
  group: [name, `${name}/*`],
  allowTypeImports: true,
  message: `${WORKFLOW_LAYER}: ${why}. Import types only (import type), or move the code to src/activities.`,
});

export default defineConfig(
  { ignores: ['dist/**', 'node_modules/**', 'test-output/**', 'docker/**', 'bin/**', '*.config.ts', 'eslint.config.js'] },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
  {
    files: ['src/workflows/**/*.ts', 'src/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: builtinModules.map((name) => ({
            name,
            message: `${WORKFLOW_LAYER}: no Node built-ins; do the I/O in an activity (src/activities).`,
          })),
          patterns: [
            {
              group: ['node:*'],
              message: `${WORKFLOW_LAYER}: no Node built-ins; do the I/O in an activity (src/activities).`,
            },
            ioPackage('@anthropic-ai/sdk', 'the Messages API is called by the callModel activity'),
            ioPackage('@temporalio/activity', 'activity APIs belong in src/activities'),
            ioPackage('@temporalio/client', 'the client talks to the server over the network'),
            ioPackage('@temporalio/worker', 'the worker is Node-only'),
            ioPackage('@modelcontextprotocol/sdk', 'MCP servers are reached from activities'),
          ],
        },
      ],
    },
  },
);
