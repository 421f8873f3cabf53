// Unit tests of the CLI's argument parser: the flag grammar every command shares.
import { describe, expect, it } from 'vitest';
import { expectPositionals, parseArgs, UsageError, type FlagSpec } from '../../src/core/args.js';

const SPEC = {
  json: { type: 'boolean', help: 'json' },
  model: { type: 'string', help: 'model' },
  mode: { type: 'string', choices: ['fast', 'slow'], help: 'mode' },
  'max-steps': { type: 'int', min: 1, max: 100, help: 'steps' },
  offset: { type: 'int', help: 'offset' },
  ratio: { type: 'number', min: 0, help: 'ratio' },
  tools: { type: 'list', help: 'tools' },
  hook: { type: 'list', repeatable: true, help: 'hooks' },
} satisfies Record<string, FlagSpec>;

const parse = (...argv: string[]) => parseArgs(argv, SPEC);

/** The UsageError that `fn` throws (fails the test when it throws nothing or something else). */
function usageError(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('expected a UsageError, nothing was thrown');
}

describe('parseArgs: flag forms and positions', () => {
  it('reads "--k v" and "--k=v" to the same value', () => {
    expect(parse('--model', 'claude-x').flags.model).toBe('claude-x');
    expect(parse('--model=claude-x').flags.model).toBe('claude-x');
    expect(parse('--max-steps', '7').flags['max-steps']).toBe(7);
    expect(parse('--max-steps=7').flags['max-steps']).toBe(7);
  });

  it('keeps everything after the first "=" as the value of --k=v', () => {
    expect(parse('--model=a=b=c').flags.model).toBe('a=b=c');
  });

  it('accepts flags before and after the positional, and between positionals', () => {
    const before = parse('--json', '--model', 'm', 'the task');
    const after = parse('the task', '--json', '--model', 'm');
    const between = parse('a', '--model=m', 'b', '--json');
    for (const parsed of [before, after]) {
      expect(parsed.positionals).toEqual(['the task']);
      expect(parsed.flags).toEqual({ json: true, model: 'm' });
    }
    expect(between.positionals).toEqual(['a', 'b']);
    expect(between.flags).toEqual({ model: 'm', json: true });
  });

  it('leaves flags that were not given undefined (no defaults invented by the parser)', () => {
    const { flags, positionals } = parse('task');
    expect(flags).toEqual({});
    expect(positionals).toEqual(['task']);
  });

  it('takes a value that looks like a negative number, and a value that is a single "-" word', () => {
    expect(parse('--offset', '-5').flags.offset).toBe(-5);
    expect(parse('--model', '-').flags.model).toBe('-');
  });

  it('takes a value that starts with a single dash as the value (e.g. a system prompt)', () => {
    expect(parse('--model', '-x').flags.model).toBe('-x');
  });
});

describe('parseArgs: "--" ends the flags', () => {
  it('treats everything after "--" as positionals, even words that look like flags', () => {
    const { flags, positionals } = parse('--json', '--', '--model', 'x', '--bogus', '-v');
    expect(flags).toEqual({ json: true });
    expect(positionals).toEqual(['--model', 'x', '--bogus', '-v']);
  });

  it('keeps positionals given before "--" in order with those after it', () => {
    expect(parse('first', '--', 'second').positionals).toEqual(['first', 'second']);
  });

  it('treats a second "--" after the first as a positional', () => {
    expect(parse('--', '--', 'x').positionals).toEqual(['--', 'x']);
  });

  it('accepts a bare "--" at the end with nothing after it', () => {
    expect(parse('task', '--')).toEqual({ flags: {}, positionals: ['task'] });
  });
});

describe('parseArgs: errors are UsageErrors that name the problem', () => {
  it('rejects a repeated flag, in either form', () => {
    expect(usageError(() => parse('--model', 'a', '--model', 'b')).message).toMatch(/--model was given twice/);
    expect(usageError(() => parse('--json', '--json=false')).message).toMatch(/--json was given twice/);
    expect(usageError(() => parse('--max-steps=1', 'x', '--max-steps', '2')).message).toMatch(/--max-steps was given twice/);
  });

  it('suggests the nearest flag for a likely typo, a missing letter, swapped letters or a unique prefix', () => {
    expect(usageError(() => parse('--max-step', '3')).message).toBe('unknown option --max-step (did you mean --max-steps?)');
    expect(usageError(() => parse('--modle', 'x')).message).toBe('unknown option --modle (did you mean --model?)');
    expect(usageError(() => parse('--rat=1')).message).toBe('unknown option --rat (did you mean --ratio?)');
    expect(usageError(() => parse('-json')).message).toMatch(/unknown option -json \(options are written --name: did you mean --json\?\)/);
  });

  it('rejects an unknown flag that resembles none and lists every known one in the message', () => {
    const err = usageError(() => parse('task', '--bogus'));
    expect(err.message).not.toMatch(/did you mean/);
    expect(err.message).toMatch(/unknown option --bogus/);
    for (const name of Object.keys(SPEC)) expect(err.message).toContain(`--${name}`);
  });

  it('names an unknown flag given as --k=v without its value', () => {
    const err = usageError(() => parse('--bogus=1'));
    expect(err.message).toMatch(/unknown option --bogus\b/);
    expect(err.message).not.toContain('--bogus=1');
  });

  it('rejects an unknown flag even when the spec is empty, without an empty list', () => {
    const err = usageError(() => parseArgs(['--x'], {}));
    expect(err.message).toBe('unknown option --x');
  });

  it('rejects single-dash options (options are written --name)', () => {
    expect(usageError(() => parse('-j')).message).toMatch(/unknown option -j.*--name/);
    expect(usageError(() => parse('task', '-model=x')).message).toMatch(/unknown option -model=x/);
  });

  it('accepts a lone "-" and a negative number as positionals', () => {
    expect(parse('-', '-3').positionals).toEqual(['-', '-3']);
  });

  it('rejects a value flag at the end of argv with no value', () => {
    expect(usageError(() => parse('task', '--model')).message).toMatch(/--model needs a value/);
  });

  it('rejects a value flag followed by another flag instead of a value', () => {
    expect(usageError(() => parse('--model', '--json')).message).toMatch(/--model needs a value/);
    expect(usageError(() => parse('--max-steps', '--bogus')).message).toMatch(/--max-steps needs a value/);
  });
});

describe('parseArgs: int flags', () => {
  it('accepts whole numbers within the range, including its bounds', () => {
    expect(parse('--max-steps', '1').flags['max-steps']).toBe(1);
    expect(parse('--max-steps', '100').flags['max-steps']).toBe(100);
    expect(parse('--max-steps', '05').flags['max-steps']).toBe(5);
  });

  it('rejects values below min and above max, naming the bound and the value', () => {
    expect(usageError(() => parse('--max-steps', '0')).message).toBe('--max-steps must be at least 1 (got 0)');
    expect(usageError(() => parse('--max-steps=-3')).message).toBe('--max-steps must be at least 1 (got -3)');
    expect(usageError(() => parse('--max-steps', '101')).message).toBe('--max-steps must be at most 100 (got 101)');
  });

  it('rejects values that are not whole numbers', () => {
    for (const bad of ['abc', '1.5', '1e3', '', ' ', '0x10', '12abc', 'Infinity', 'NaN']) {
      const err = usageError(() => parse(`--max-steps=${bad}`));
      expect(err.message, bad).toBe(`--max-steps must be a whole number (got "${bad}")`);
    }
  });

  it('rejects integers beyond the safe range instead of rounding them', () => {
    expect(usageError(() => parse('--offset', '9007199254740993')).message).toMatch(/--offset must be a whole number/);
  });

  it('accepts negative values when the spec has no min', () => {
    expect(parse('--offset=-42').flags.offset).toBe(-42);
  });
});

describe('parseArgs: number, string-with-choices, list and boolean flags', () => {
  it('reads number flags, with their min, and rejects non-numbers', () => {
    expect(parse('--ratio', '0.25').flags.ratio).toBe(0.25);
    expect(usageError(() => parse('--ratio', '-1')).message).toBe('--ratio must be at least 0 (got -1)');
    expect(usageError(() => parse('--ratio', 'lots')).message).toBe('--ratio must be a number (got "lots")');
    expect(usageError(() => parse('--ratio=')).message).toBe('--ratio must be a number (got "")');
    expect(usageError(() => parse('--ratio=Infinity')).message).toMatch(/must be a number/);
  });

  it('accepts a choice and rejects anything else, listing the choices', () => {
    expect(parse('--mode', 'fast').flags.mode).toBe('fast');
    expect(usageError(() => parse('--mode', 'medium')).message).toBe('--mode must be one of fast, slow (got "medium")');
  });

  it('splits a list on commas, trims items and drops empty ones', () => {
    expect(parse('--tools', 'calculator,web_search').flags.tools).toEqual(['calculator', 'web_search']);
    expect(parse('--tools= calculator , ,web_search,').flags.tools).toEqual(['calculator', 'web_search']);
    expect(parse('--tools', 'one').flags.tools).toEqual(['one']);
  });

  it('adds up the values of a repeatable list flag given more than once, one each (a comma stays in the URL); a plain list flag stays "given twice"', () => {
    expect(parse('--hook', 'https://a/x', '--hook=https://b/y?ids=1,2').flags.hook).toEqual(['https://a/x', 'https://b/y?ids=1,2']);
    expect(usageError(() => parse('--tools', 'a', '--tools', 'b')).message).toBe('--tools was given twice');
  });

  it('refuses a list with no names in it (an unset shell variable), rather than meaning "none"', () => {
    expect(usageError(() => parse('--tools', '')).message).toBe('--tools needs at least one name (got "")');
    expect(usageError(() => parse('--tools= , ')).message).toBe('--tools needs at least one name (got " , ")');
  });

  it('sets a boolean flag to true when given bare, and reads =true / =false', () => {
    expect(parse('--json').flags.json).toBe(true);
    expect(parse('--json=true').flags.json).toBe(true);
    expect(parse('--json=false').flags.json).toBe(false);
  });

  it('rejects any other =value on a boolean flag', () => {
    expect(usageError(() => parse('--json=yes')).message).toBe('--json takes no value, or =true / =false (got "yes")');
    expect(usageError(() => parse('--json=')).message).toMatch(/--json takes no value/);
  });

  it('never consumes the next word as the value of a boolean flag', () => {
    expect(parse('--json', 'false')).toEqual({ flags: { json: true }, positionals: ['false'] });
  });
});

describe('expectPositionals', () => {
  const USAGE = 'run "<task>" [--json]';

  it('returns the positionals when there are exactly as many as names', () => {
    expect(expectPositionals(['do it'], ['task'], USAGE)).toEqual(['do it']);
    expect(expectPositionals([], [], 'worker')).toEqual([]);
  });

  it('names what is missing and shows the usage line', () => {
    const err = usageError(() => expectPositionals([], ['task'], USAGE));
    expect(err.message).toBe(`missing task\nusage: ${USAGE}`);
    expect(usageError(() => expectPositionals(['a'], ['x', 'y', 'z'], 'u')).message).toBe('missing y and z\nusage: u');
  });

  it('quotes the extra arguments and hints at quoting a task with spaces', () => {
    const err = usageError(() => expectPositionals(['search', 'for', 'France'], ['task'], USAGE));
    expect(err.message).toBe(`unexpected argument "for" "France" (quote a task that has spaces)\nusage: ${USAGE}`);
    const send = usageError(() => expectPositionals(['id', 'hello', 'there'], ['workflowId', 'text'], 'send'));
    expect(send.message).toMatch(/^unexpected argument "there" \(quote a message that has spaces\)/);
  });

  it('gives no quoting hint when the extra word cannot be part of a task (an id, or a command without arguments)', () => {
    expect(usageError(() => expectPositionals(['id', 'extra'], ['workflowId'], 'result <workflowId>')).message).toBe(
      'unexpected argument "extra"\nusage: result <workflowId>',
    );
    expect(usageError(() => expectPositionals(['x'], [], 'worker')).message).not.toMatch(/quote/);
  });

  it('rejects any positional for a command that takes none', () => {
    expect(usageError(() => expectPositionals(['x'], [], 'worker [--scripted]')).message).toMatch(/^unexpected argument "x"/);
  });
});
