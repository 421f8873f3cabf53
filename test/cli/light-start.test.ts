// `--help`, a bad flag and a bad value are answered before the CLI loads Temporal's SDK, the model SDK, the MCP SDK
// or the HTTP framework (about 0.6 to 1.3 s of CPU per process, which a person waits for and the test suite paid
// hundreds of times). Each command runs with a preloaded module that lists, as the process exits, the packages it
// loaded; the commands that do their work must still load them (so the listing cannot pass by seeing nothing).
// The help and usage-error cases run one after another in ONE process, the built CLI's main() called for each: the
// packages loaded only grow, so an empty list after each command proves that command loaded none (one process per
// case cost 28 processes, about 30 s of CPU).
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { countCliProcess } from '../helpers/cli-count.js';

const run = promisify(execFile);
const HEAVY = /node_modules\/(@temporalio\/[\w-]+|@anthropic-ai\/sdk|@modelcontextprotocol\/sdk|hono|@hono\/[\w-]+)\//;

let dir: string;
let hook: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'durable-agent-light-'));
  hook = path.join(dir, 'loaded-packages.mjs');
  // ES modules of these packages are CommonJS underneath: each one loaded is in the CommonJS module cache.
  await writeFile(
    hook,
    `import { createRequire } from 'node:module';
const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  const heavy = new Set(Object.keys(cache).map((f) => f.match(${HEAVY})?.[1]).filter(Boolean));
  process.stderr.write('\\nLOADED ' + JSON.stringify([...heavy].sort()) + '\\n');
});
`,
  );
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Each command's exit code and the heavy packages loaded so far, the commands run in order in one process (the
 * built CLI's main(), as bin/durable-agent.js calls it). */
async function loadedByEach(cases: string[][]): Promise<Array<{ args: string; code: number; loaded: string[] }>> {
  countCliProcess(cases[0]);
  const driver = `import { createRequire } from 'node:module';
import { writeSync } from 'node:fs';
const cache = createRequire(import.meta.url).cache;
const heavy = () => [...new Set(Object.keys(cache).map((f) => f.match(${HEAVY})?.[1]).filter(Boolean))].sort();
const { main } = await import(${JSON.stringify(path.join(ROOT, 'dist', 'cli', 'main.js'))});
for (const args of ${JSON.stringify(cases)}) {
  const code = await main(args);
  writeSync(2, '\\nCASE ' + JSON.stringify({ args: args.join(' '), code, loaded: heavy() }) + '\\n');
}
`;
  const childEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TEMPORAL_ADDRESS: '127.0.0.1:1', NO_COLOR: '1' };
  const { stderr } = await run(process.execPath, ['--input-type=module', '-e', driver], { cwd: ROOT, env: childEnv, maxBuffer: 16 * 1024 * 1024 });
  return [...stderr.matchAll(/\nCASE (.*)\n/g)].map((m) => JSON.parse(m[1]) as { args: string; code: number; loaded: string[] });
}

/** The command's exit code and the heavy packages it loaded. */
async function loadedBy(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; loaded: string[]; stderr: string }> {
  const childEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TEMPORAL_ADDRESS: '127.0.0.1:1', NO_COLOR: '1', ...env };
  countCliProcess(args);
  const result = await run(process.execPath, ['--import', hook, path.join(ROOT, 'bin', 'durable-agent.js'), ...args], { cwd: ROOT, env: childEnv }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
  );
  const listed = result.stderr.match(/\nLOADED (.*)\n$/);
  if (!listed) throw new Error(`no LOADED line in the stderr of ${args.join(' ')}:\n${result.stderr}`);
  return { code: result.code, loaded: JSON.parse(listed[1]) as string[], stderr: result.stderr };
}

const COMMANDS = ['run', 'demo', 'start', 'result', 'status', 'transcript', 'watch', 'list', 'approve', 'deny', 'answer', 'send', 'close', 'cancel', 'complete-tool', 'resume', 'serve', 'mcp', 'worker', 'server', 'codec-server'];

describe('a command answers help and usage errors without loading the SDKs', () => {
  it('every command’s --help', async () => {
    const answers = await loadedByEach(COMMANDS.map((command) => [command, '--help']));
    expect(answers).toEqual(COMMANDS.map((command) => ({ args: `${command} --help`, code: 0, loaded: [] })));
  });

  it('an unknown flag, a malformed number, a bad duration, a missing task, a bad sizing, an empty tool list', async () => {
    const cases = [
      ['start', '--frobnicate', 'a task'],
      ['run', '--scripted', '--max-steps', 'abc', 'a task'],
      ['start', '--deadline', 'soon', 'a task'],
      ['run', '--scripted'],
      ['worker', '--scripted', '--workflow-pollers', '1'],
      ['start', '--tools=', 'a task'],
      ['status'],
    ];
    const answers = await loadedByEach(cases);
    expect(answers).toEqual(cases.map((args) => ({ args: args.join(' '), code: 2, loaded: [] })));
  });

  it('a command that reaches for the server does load Temporal’s client (the listing sees what is loaded)', async () => {
    const { code, loaded, stderr } = await loadedBy(['start', 'a task']);
    expect(code, stderr).toBe(2); // nothing answers on 127.0.0.1:1
    expect(stderr).toMatch(/does not answer/);
    expect(loaded).toContain('@temporalio/client');
  });
});
