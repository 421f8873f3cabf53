// N `durable-agent start` processes at once against one Temporal server: how many succeed, and how long each takes
// (wall time of the whole process, median and p90). With PROFILE=1 each process also reports where its time went
// (node startup, loading the command's modules, the reachability probe, the connection, the start itself), through
// DURABLE_AGENT_PROFILE (src/cli/profile.ts).
//
//   TEMPORAL_ADDRESS=127.0.0.1:7233 node bench/concurrent-start.mjs [N=10] [ROUNDS=1] [CLI=bin/durable-agent.js]
//
// Needs a running server (`durable-agent server`) and a built CLI (`npm run build`). Not a timed test.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const N = Number(process.argv[2] ?? 10);
const ROUNDS = Number(process.argv[3] ?? 1);
const CLI = process.argv[4] ?? fileURLToPath(new URL('../bin/durable-agent.js', import.meta.url));
const profile = process.env.PROFILE === '1';

if (!process.env.TEMPORAL_ADDRESS) {
  process.stderr.write('set TEMPORAL_ADDRESS to a running Temporal server (e.g. 127.0.0.1:7233)\n');
  process.exit(2);
}

function startOne(i, round) {
  const began = process.hrtime.bigint();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'start', `concurrent start bench ${round}.${i}`, '--json'], {
      env: { ...process.env, AGENT_TASK_QUEUE: 'concurrent-start-bench', ...(profile ? { DURABLE_AGENT_PROFILE: '1' } : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - began) / 1e6;
      const phases = [...stderr.matchAll(/^profile (\S+) (\d+) ms$/gm)].map((m) => [m[1], Number(m[2])]);
      resolve({ code, ms, stdout, stderr, phases });
    });
  });
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const all = [];
for (let round = 0; round < ROUNDS; round++) {
  all.push(...(await Promise.all(Array.from({ length: N }, (_, i) => startOne(i, round)))));
}
const ok = all.filter((r) => r.code === 0);
const ms = all.map((r) => r.ms).sort((a, b) => a - b);
console.log(`${N} concurrent starts x ${ROUNDS}: ${ok.length} of ${all.length} succeeded; wall time median ${Math.round(pct(ms, 50))} ms, p90 ${Math.round(pct(ms, 90))} ms, max ${Math.round(ms.at(-1))} ms`);
const failures = new Map();
for (const r of all.filter((r) => r.code !== 0)) {
  const line = (r.stderr.split('\n').find((l) => l.startsWith('error:')) ?? `exit ${r.code}`).slice(0, 160);
  failures.set(line, (failures.get(line) ?? 0) + 1);
}
for (const [line, count] of failures) console.log(`  ${count} x ${line}`);
if (profile) {
  const byPhase = new Map();
  for (const r of ok) for (const [phase, v] of r.phases) byPhase.set(phase, [...(byPhase.get(phase) ?? []), v]);
  for (const [phase, values] of byPhase) {
    values.sort((a, b) => a - b);
    console.log(`  ${phase.padEnd(12)} median ${pct(values, 50)} ms (at that point since the process started)`);
  }
}
