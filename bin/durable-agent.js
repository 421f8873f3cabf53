#!/usr/bin/env node
// The CLI, built by `npm run build` (which `npm ci` runs through the `prepare` script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('durable-agent is not built yet: run `npm ci` (or `npm run build`) in the project first.\n');
  process.exit(2);
}
const { runCli } = await import(entry.href);
// Exits once every byte of output has reached its reader (a bare process.exit would cut piped output at 64 KB).
await runCli(process.argv.slice(2));
