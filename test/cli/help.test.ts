// The CLI explains itself: every command answers --help, -h and `help <command>` with its usage, its flags (each
// with a description) and an example; --version prints the package's version; a typo gets a suggestion; an
// error a person causes is one line, never a stack trace, unless DEBUG=durable-agent asks for it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectExit, expectUsageError, ROOT, useCli } from '../helpers/cli.js';

const { session } = useCli();

const STACK_FRAME = /\n\s+at .+:\d+:\d+/;

/** The commands listed by `durable-agent --help`. */
function commandsOf(overview: string): string[] {
  const section = overview.split('commands:\n')[1].split('\n\n')[0];
  return section.split('\n').map((line) => line.trim().split(/\s+/)[0]);
}

describe('help', () => {
  it('--help lists every command with a summary, and each command answers --help with usage, described flags and an example', async () => {
    const { cli } = session();
    const overview = await cli(['--help']);
    expectExit(overview, 0);
    const commands = commandsOf(overview.stdout);
    expect(commands).toEqual(expect.arrayContaining(['run', 'start', 'result', 'status', 'transcript', 'watch', 'list', 'worker', 'server']));
    expect(commands.length).toBeGreaterThanOrEqual(16);
    const helps = await Promise.all(commands.map((c) => cli([c, '--help'])));
    helps.forEach((help, i) => {
      const command = commands[i];
      expectExit(help, 0);
      expect(help.stderr, command).toBe('');
      expect(help.stdout, command).toMatch(new RegExp(`^usage: durable-agent ${command}\\b`));
      expect(help.stdout, command).toMatch(new RegExp(`\\nexamples:\\n  durable-agent ${command}\\b`));
      // Every flag line has a description after the flag (and its value name).
      const options = help.stdout.split('\noptions:')[1].split('\nexamples:')[0];
      if (options.trim() !== 'none') {
        const flags = options.split('\n').filter((l) => /^  --/.test(l));
        expect(flags.length, command).toBeGreaterThan(0);
        for (const line of flags) {
          const next = options.split('\n')[options.split('\n').indexOf(line) + 1] ?? '';
          const described = /^  --\S+( \S+)?\s{2,}\S/.test(line) || /^\s{6,}\S/.test(next);
          expect(described, `${command}: ${line}`).toBe(true);
        }
      }
    });
    const run = helps[commands.indexOf('run')].stdout;
    for (const flag of ['--max-steps N', '--tools a,b', '--task-file FILE', '--scripted', '--deadline D']) expect(run).toContain(flag);
  });

  it('-h, --help anywhere among the arguments and `help <command>` print the same help', async () => {
    const { cli } = session();
    const [long, short, after, word] = await Promise.all([
      cli(['status', '--help']),
      cli(['status', '-h']),
      cli(['status', 'some-id', '--json', '--help']),
      cli(['help', 'status']),
    ]);
    for (const exit of [long, short, after, word]) expectExit(exit, 0);
    expect(long.stdout).toMatch(/^usage: durable-agent status <workflowId> \[--json\]/);
    expect(short.stdout).toBe(long.stdout);
    expect(after.stdout).toBe(long.stdout);
    expect(word.stdout).toBe(long.stdout);
  });

  it('--help after "--" is part of the task, not a request for help', async () => {
    const { cli } = session();
    const exit = await cli(['start', '--tools', 'nope', '--', '--help']);
    expectUsageError(exit, /unknown tool "nope"/);
  });

  it('--version prints the version of package.json', async () => {
    const { cli } = session();
    const { version } = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { version: string };
    const exit = await cli(['--version']);
    expectExit(exit, 0);
    expect(exit.stdout).toBe(`${version}\n`);
  });

  it('help of an unknown command is exit 2 with a suggestion', async () => {
    const { cli } = session();
    expectUsageError(await cli(['help', 'trasncript']), /unknown command "trasncript" \(did you mean transcript\?\)/);
  });
});

describe('typos and hints', () => {
  it('an unknown flag suggests the nearest one; an unknown command the nearest command', async () => {
    const { cli } = session();
    const [flag, command, far] = await Promise.all([
      cli(['run', '--scripted', '--max-step', '3', 'a task']),
      cli(['stauts', 'x']),
      cli(['start', '--frobnicate', 'a task']),
    ]);
    expectUsageError(flag, /unknown option --max-step \(did you mean --max-steps\?\)/);
    expectUsageError(command, /unknown command "stauts" \(did you mean status\?\)/);
    expectUsageError(far, /unknown option --frobnicate \(expected one of: --json, /);
    expect(far.stderr).not.toMatch(/did you mean/);
  });

  it('the "quote a task that has spaces" hint appears for an unquoted task, not for an extra word after an id', async () => {
    const { cli } = session();
    const [task, id] = await Promise.all([cli(['start', 'what', 'is', '6*7']), cli(['result', 'some-id', 'extra'])]);
    expectUsageError(task, /unexpected argument "is" "6\*7" \(quote a task that has spaces\)/);
    expectUsageError(id, /unexpected argument "extra"\n/);
    expect(id.stderr).not.toMatch(/quote/);
  });
});

describe('errors a person causes are one line, with the stack only under DEBUG=durable-agent', () => {
  it('bad flags, values and ids print no stack trace; DEBUG=durable-agent adds it', async () => {
    const { cli } = session();
    const cases = [
      ['start', '--tools', 'nope', 'a task'],
      ['run', '--scripted', '--deadline', 'soon', 'a task'],
      ['result', 'no-such-run-anywhere'],
      ['status', 'no-such-run-anywhere'],
      ['frobnicate'],
    ];
    const plain = await Promise.all(cases.map((args) => cli(args)));
    plain.forEach((exit, i) => {
      expectExit(exit, 2);
      expect(exit.stderr, cases[i].join(' ')).toMatch(/^error: /);
      expect(exit.stderr, cases[i].join(' ')).not.toMatch(STACK_FRAME);
    });
    const debug = await cli(['start', '--tools', 'nope', 'a task'], { DEBUG: 'durable-agent' });
    expectUsageError(debug, /unknown tool "nope"/);
    expect(debug.stderr).toMatch(STACK_FRAME);
  });
});
