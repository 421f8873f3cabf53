// Prints the slowest test files of a vitest JSON report (`--reporter=json --outputFile.json=FILE`), by wall-clock
// time from each file's start to its end, and the summary: `node scripts/slowest-tests.mjs FILE [N]`. .ci/run
// calls it after the tests, so CI's output shows where the suite's time goes.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [file = 'test-output/vitest-results.json', count = '10'] = process.argv.slice(2);
const report = JSON.parse(readFileSync(file, 'utf8'));
const files = (report.testResults ?? [])
  .map((r) => ({ name: path.relative(process.cwd(), r.name), ms: (r.endTime ?? 0) - (r.startTime ?? 0), tests: r.assertionResults?.length ?? 0, status: r.status }))
  .sort((a, b) => b.ms - a.ms);
const total = files.reduce((sum, f) => sum + f.ms, 0);
console.log(`Slowest ${Math.min(Number(count), files.length)} of ${files.length} test files (${(total / 1000).toFixed(0)} s of file time in all):`);
for (const f of files.slice(0, Number(count))) {
  console.log(`  ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.name} (${f.tests} tests${f.status === 'passed' ? '' : `, ${f.status}`})`);
}
