// `npm run checks`: the type check and the lint, side by side (each takes one core for ~25 s; in a row they took
// the sum). Each one's output is printed whole when it ends, so the two never interleave; the exit status is
// the first failure's.
//
// `node scripts/checks.mjs --and-vitest [vitest args]` (what `npm test` runs): the same two beside `vitest run`,
// whose output streams as it comes. Vitest's start (four dev servers, the workflow bundle) and its last files leave
// a core idle, and the checks fill it: in a row they added about 35 s to a clean clone's `npm test`. A failed check
// stops vitest at once, so a type error is still reported in seconds, not after the suite.
import { spawn } from 'node:child_process';

const checks = [
  ['typecheck', ['run', '--silent', 'typecheck']],
  ['lint', ['run', '--silent', 'lint']],
];

const andVitest = process.argv.indexOf('--and-vitest');
const vitest =
  andVitest === -1
    ? undefined
    : spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(andVitest + 1)], { stdio: 'inherit' });
const vitestEnded = vitest
  ? new Promise((resolve) => vitest.on('close', (code, signal) => resolve({ name: 'vitest', code: code ?? 1, signal })))
  : undefined;

const results = await Promise.all(
  checks.map(
    ([name, args]) =>
      new Promise((resolve) => {
        const child = spawn('npm', args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (d) => (output += d));
        child.stderr.on('data', (d) => (output += d));
        child.on('close', (code, signal) => {
          if (output) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
          const result = { name, code: code ?? 1, signal };
          if (result.code !== 0) {
            console.error(`npm run ${name} failed (exit ${result.code}${signal ? `, ${signal}` : ''})${vitest ? ': stopping vitest' : ''}`);
            vitest?.kill('SIGTERM');
          }
          resolve(result);
        });
      }),
  ),
);
if (vitestEnded) results.push(await vitestEnded);
process.exit(results.find((r) => r.code !== 0)?.code ?? 0);
