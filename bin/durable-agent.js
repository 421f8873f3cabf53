#!/usr/bin/env node
// The CLI, built by `npm run build` (which `npm ci` runs through the `prepare` script).
import { existsSync } from 'node:fs';
import v8 from 'node:v8';

// V8's optimizing compiler is off for the first seconds: a command's start-up is loading modules (Temporal's SDK
// and its protobuf definitions), code that runs once, and compiling it for speed cost about 0.2 s of CPU per
// process that it never paid back (`start` 0.92 → 0.74 s, `worker` to polling 2.03 → 1.76 s: bench/cli-start.mjs).
// A short command ends before it is back on; a worker or a server runs optimized from then on.
const OPTIMIZER_OFF_MS = 3000;
v8.setFlagsFromString('--no-opt');
setTimeout(() => v8.setFlagsFromString('--opt'), OPTIMIZER_OFF_MS).unref();

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('durable-agent is not built yet: run `npm ci` (or `npm run build`) in the project first.\n');
  process.exit(2);
}
const { runCli } = await import(entry.href);
// Exits once every byte of output has reached its reader (a bare process.exit would cut piped output at 64 KB).
await runCli(process.argv.slice(2));
