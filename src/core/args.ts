// A small, strict command-line parser: `--k v` or `--k=v`, flags before or after positionals, `--` ends
// flags. Anything it does not understand is a UsageError (exit code 2) that names the problem.
import { nearestName as nearest } from './suggest.js';

export class UsageError extends Error {
  override name = 'UsageError';
}

/** What every flag carries besides its type: the one line `<command> --help` shows for it, and the name of its
 * value there (`--max-steps N`; by default N for numbers, TEXT for strings, a,b for lists). */
interface FlagDoc {
  help: string;
  value?: string;
  /** What the default is on this machine (e.g. from the heap size): appended to `help` by `--help`, left out of
   * the generated docs/cli.md, which must read the same on every machine. */
  here?: () => string;
}

export type FlagSpec = FlagDoc &
  (
    | { type: 'boolean' }
    | { type: 'string'; choices?: readonly string[] }
    | { type: 'int'; min?: number; max?: number }
    | { type: 'number'; min?: number }
    | {
        type: 'list';
        /** May be given more than once, one item each time, not split on commas (a URL may hold one): the items add
         * up (`--webhook A --webhook B`). */
        repeatable?: boolean;
      }
  );

export type FlagValue<S extends FlagSpec> = S extends { type: 'boolean' }
  ? boolean
  : S extends { type: 'int' | 'number' }
    ? number
    : S extends { type: 'list' }
      ? string[]
      : string;

export interface Parsed<F extends Record<string, FlagSpec>> {
  flags: { [K in keyof F]?: FlagValue<F[K]> };
  positionals: string[];
}

export function parseArgs<F extends Record<string, FlagSpec>>(argv: readonly string[], spec: F): Parsed<F> {
  const flags: Record<string, unknown> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '--') {
      if (arg.startsWith('-') && arg.length > 1 && !/^-\d/.test(arg)) {
        const guess = nearest(arg.replace(/^-+/, '').split('=')[0], Object.keys(spec));
        throw new UsageError(`unknown option ${arg} (options are written --name${guess ? `: did you mean --${guess}?` : ''})`);
      }
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const flag = spec[name];
    if (!flag) throw unknownFlag(name, Object.keys(spec));
    const repeats = flag.type === 'list' && flag.repeatable === true;
    if (name in flags && !repeats) throw new UsageError(`--${name} was given twice`);
    let raw: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    if (flag.type === 'boolean') {
      if (raw === undefined) flags[name] = true;
      else if (raw === 'true' || raw === 'false') flags[name] = raw === 'true';
      else throw new UsageError(`--${name} takes no value, or =true / =false (got "${raw}")`);
      continue;
    }
    if (raw === undefined) {
      raw = argv[++i];
      if (raw === undefined || (raw.startsWith('--') && raw.length > 2)) {
        throw new UsageError(`--${name} needs a value`);
      }
    }
    const value = convert(name, flag, raw);
    flags[name] = repeats && name in flags ? [...(flags[name] as string[]), ...(value as string[])] : value;
  }
  return { flags: flags as Parsed<F>['flags'], positionals };
}

function convert(name: string, flag: FlagSpec, raw: string): unknown {
  switch (flag.type) {
    case 'string':
      if (raw.trim() === '') throw new UsageError(`--${name} needs a non-empty value`);
      if (flag.choices && !flag.choices.includes(raw)) {
        throw new UsageError(`--${name} must be one of ${flag.choices.join(', ')} (got "${raw}")`);
      }
      return raw;
    case 'int': {
      const n = Number(raw);
      if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n)) {
        throw new UsageError(`--${name} must be a whole number (got "${raw}")`);
      }
      if (flag.min !== undefined && n < flag.min) throw new UsageError(`--${name} must be at least ${flag.min} (got ${n})`);
      if (flag.max !== undefined && n > flag.max) throw new UsageError(`--${name} must be at most ${flag.max} (got ${n})`);
      return n;
    }
    case 'number': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} must be a number (got "${raw}")`);
      if (flag.min !== undefined && n < flag.min) throw new UsageError(`--${name} must be at least ${flag.min} (got ${n})`);
      return n;
    }
    case 'list': {
      const items = (flag.repeatable ? [raw] : raw.split(','))
        .map((s) => s.trim())
        .filter(Boolean);
      // `--tools ""` would otherwise mean "none" by accident (an unset shell variable): say so instead.
      if (items.length === 0) throw new UsageError(`--${name} needs at least one name (got "${raw}")`);
      return items;
    }
    case 'boolean':
      throw new Error('unreachable: boolean flags are handled by the caller');
  }
}

/** An unknown flag: the nearest known one when it is a likely typo, else the list of known ones. */
function unknownFlag(name: string, known: string[]): UsageError {
  const guess = nearest(name, known);
  if (guess) return new UsageError(`unknown option --${name} (did you mean --${guess}?)`);
  const list = known.map((k) => `--${k}`);
  return new UsageError(`unknown option --${name}${list.length ? ` (expected one of: ${list.join(', ')})` : ''}`);
}

/** Positionals whose last one is free text (a task, a message): extra words then most likely belong to it. */
const FREE_TEXT = new Set(['task', 'text']);

/** Exactly `count` positionals, or a UsageError naming what is missing or extra. */
export function expectPositionals(positionals: string[], names: readonly string[], usage: string): string[] {
  if (positionals.length < names.length) {
    throw new UsageError(`missing ${names.slice(positionals.length).join(' and ')}\nusage: ${usage}`);
  }
  if (positionals.length > names.length) {
    const extra = positionals.slice(names.length).map((p) => JSON.stringify(p));
    const last = names[names.length - 1];
    const hint = last !== undefined && FREE_TEXT.has(last) ? ` (quote a ${last === 'task' ? 'task' : 'message'} that has spaces)` : '';
    throw new UsageError(`unexpected argument ${extra.join(' ')}${hint}\nusage: ${usage}`);
  }
  return positionals;
}

/** The name of a flag's value in help: `--max-steps N`, `--tools a,b`, `--json` (none). */
export function flagValueName(spec: FlagSpec): string {
  if (spec.value !== undefined) return spec.value;
  switch (spec.type) {
    case 'boolean':
      return '';
    case 'int':
      return 'N';
    case 'number':
      return 'X';
    case 'list':
      return 'a,b';
    case 'string':
      return spec.choices ? spec.choices.join('|') : 'TEXT';
  }
}
