// `npm run checks`: the type check and the lint, side by side (each takes one core for ~25 s; in a row they took
// the sum). Each one's output is printed whole when it ends, so the two never interleave; the exit status is
// the first failure's.
import { spawn } from 'node:child_process';

const checks = [
  ['typecheck', ['run', '--silent', 'typecheck']],
  ['lint', ['run', '--silent', 'lint']],
];

const results = await Promise.all(
  checks.map(
    ([name, args]) =>
      new Promise((resolve) => {
        const started = Date.now();
        const child = spawn('npm', args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (d) => (output += d));
        child.stderr.on('data', (d) => (output += d));
        child.on('close', (code, signal) => resolve({ name, code: code ?? 1, signal, output, ms: Date.now() - started }));
      }),
  ),
);
for (const r of results) {
  if (r.output) process.stdout.write(r.output.endsWith('\n') ? r.output : `${r.output}\n`);
  if (r.code !== 0) console.error(`npm run ${r.name} failed (exit ${r.code}${r.signal ? `, ${r.signal}` : ''})`);
}
process.exit(results.find((r) => r.code !== 0)?.code ?? 0);
