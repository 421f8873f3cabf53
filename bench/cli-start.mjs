// CPU of a CLI process's start, for two built checkouts side by side (interleaved, on one dev server): a client
// command (`start`) and a worker (`worker --scripted`, from launch until it polls, then stopped). The test suite
// starts some 500 CLI processes, so their start-up is a large part of its CPU.
//   node bench/cli-start.mjs <checkout A> <checkout B> [rounds]
// Needs TEMPORAL_CLI_PATH (npm run temporal:install prints it) and /usr/bin/time.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startDevServer } from '../dist/devserver/dev-server.js';

const [a, b, roundsArg] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node bench/cli-start.mjs <checkout A> <checkout B> [rounds]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 5);
const scriptPath = path.join(process.env.TMPDIR ?? '/tmp', `cli-start-script-${process.pid}.json`);
writeFileSync(scriptPath, JSON.stringify([{ content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' }]));
const server = await startDevServer({ cliPath: process.env.TEMPORAL_CLI_PATH, uiPort: false, log: () => {} });

/** CPU seconds (user + system) of one CLI process; `until`: stop it with SIGINT once its stderr matches. */
function cpuOf(checkout, args, until) {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, TEMPORAL_ADDRESS: server.address, AGENT_TASK_QUEUE: `bench-${Math.random()}`, AGENT_SCRIPT: scriptPath };
    const child = spawn('/usr/bin/time', ['-f', 'CPU %U %S', process.execPath, path.join(checkout, 'bin', 'durable-agent.js'), ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      if (until && until.test(err)) {
        until = undefined;
        spawn('pkill', ['-INT', '-P', String(child.pid)]);
      }
    });
    child.on('close', () => {
      const m = err.match(/CPU ([\d.]+) ([\d.]+)\s*$/);
      if (!m) reject(new Error(`no CPU figure:\n${err.slice(-2000)}`));
      else resolve(Number(m[1]) + Number(m[2]));
    });
  });
}

const kinds = {
  start: (c) => cpuOf(c, ['start', 'a task']),
  worker: (c) => cpuOf(c, ['worker', '--scripted'], /worker polling task queue/),
};
const figures = {};
for (let r = 0; r < rounds; r++) {
  for (const [kind, measure] of Object.entries(kinds)) {
    for (const [name, checkout] of [['A', a], ['B', b]]) ((figures[kind] ??= { A: [], B: [] })[name]).push(await measure(checkout));
  }
}
await server.stop();
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
console.log(`CPU per process, median of ${rounds} (s): A = ${a}, B = ${b}`);
for (const [kind, f] of Object.entries(figures)) {
  console.log(`${kind.padEnd(8)} A ${median(f.A).toFixed(2)}  B ${median(f.B).toFixed(2)}  B/A ${(median(f.B) / median(f.A)).toFixed(2)}`);
}
