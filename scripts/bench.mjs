// `npm run bench [-- --json FILE] [--fleet 10,100] [--repeats 3] [--fleet-http 10,100] [--fleet-fast 10,100] [--fleet-local 10,100] [--only a,b]`: the benchmarks (not part of `npm test`), through
// vitest so the TypeScript sources run as they are:
//   (a) per-turn time and (b) the fleet: bench/fleet.bench.ts;  (c) history bytes: bench/history-growth.bench.ts;
//   (e) where a bare activity round trip spends its time on the dev server: bench/dispatch.bench.ts;
//   (f) how long a job can run against a 40k-token window, with and without compaction: bench/long-job.bench.ts;
//   (g) a tool call of 330 s under a 10-minute timeout: bench/long-tool-call.bench.ts (only with --only: it takes 5.5 min);
//   (h) ours against ours changed in one thing (run settings, another workflow bundle), a fleet each, side by side:
//       bench/variants.bench.ts (only with --only; BENCH_VARIANTS says which);
//   (d) recovery after a worker SIGKILL: test/durability/recovery.test.ts (the crash test; its figures are read
//       from what it prints, and it asserts the 15 s bound itself).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const value = (flag) => {
  const i = args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (i < 0) return undefined;
  return args[i].includes('=') ? args[i].slice(args[i].indexOf('=') + 1) : args[i + 1];
};
const env = { ...process.env };
const json = value('--json');
if (json) {
  env.BENCH_JSON = path.resolve(json);
  writeFileSync(env.BENCH_JSON, '{}');
}
const fleet = value('--fleet');
if (fleet) env.BENCH_FLEET = fleet;
// The fleet's repeats (interleaved, the median reported) and the sizes that also run the bare+HTTP floor.
const repeats = value('--repeats');
if (repeats) env.BENCH_FLEET_REPEATS = repeats;
const fleetHttp = value('--fleet-http');
if (fleetHttp) env.BENCH_FLEET_HTTP = fleetHttp;
// The sizes that also run ours with a fast tool (`fast: true`: local activities).
const fleetFast = value('--fleet-fast');
if (fleetFast) env.BENCH_FLEET_FAST = fleetFast;
// The sizes that also run ours with local model calls (`localModelCalls`).
const fleetLocal = value('--fleet-local');
if (fleetLocal) env.BENCH_FLEET_LOCAL = fleetLocal;
const only = value('--only')?.split(',');
const benches = only ?? ['bench/fleet.bench.ts', 'bench/history-growth.bench.ts', 'bench/dispatch.bench.ts', 'bench/long-job.bench.ts', 'recovery'];

let failed = false;
// Each step timed, so that the bench's own time says where it goes.
const took = [];
const timed = (name, fn) => {
  const t0 = Date.now();
  fn();
  took.push(`${name} ${((Date.now() - t0) / 1000).toFixed(0)} s`);
};
const files = benches.filter((b) => b !== 'recovery');
// The fleet bench's workers and the recovery test's run the BUILT package (dist/), as a user runs it.
if (files.includes('bench/fleet.bench.ts') || benches.includes('recovery')) timed('build', () => {
  const r = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit', env });
  if (r.status !== 0) process.exit(1);
});
// One vitest run per file.
for (const file of files) {
  timed(file, () => {
    const r = spawnSync('npx', ['vitest', 'run', '-c', 'vitest.bench.config.ts', file], { stdio: 'inherit', env });
    failed ||= r.status !== 0;
  });
}
if (benches.includes('recovery')) timed('recovery', () => {
  const r = spawnSync('npx', ['vitest', 'run', 'test/durability/recovery.test.ts'], { env, encoding: 'utf8' });
  const out = `${r.stdout}\n${r.stderr}`;
  const ms = (label) => Number(out.match(new RegExp(`recovery, ${label}: (\\d+) ms`))?.[1] ?? NaN);
  const recovery = { modelCallInFlightMs: ms('model call in flight'), betweenTurnsMs: ms('between turns'), testPassed: r.status === 0 };
  console.log(
    `\n(d) Recovery after a worker SIGKILL, to the next completed step on another worker (bound: 15 s)\n` +
      `the worker died          | recovery (s)\nduring a model call      | ${(recovery.modelCallInFlightMs / 1000).toFixed(1)}\n` +
      `between turns           | ${(recovery.betweenTurnsMs / 1000).toFixed(1)}\n${recovery.testPassed ? '' : 'the recovery test FAILED:\n' + out.slice(-3000)}`,
  );
  failed ||= r.status !== 0;
  if (env.BENCH_JSON) {
    const all = existsSync(env.BENCH_JSON) ? JSON.parse(readFileSync(env.BENCH_JSON, 'utf8')) : {};
    writeFileSync(env.BENCH_JSON, JSON.stringify({ ...all, recovery }, null, 2));
  }
});
console.log(`\nTime taken: ${took.join(', ')}`);
process.exit(failed ? 1 : 0);
