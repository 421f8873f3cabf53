// A small, strict command-line parser: `--k v` or `--k=v`, flags before or after positionals, `--` ends
// flags. Anything it does not understand is a UsageError (exit code 2) that names the problem.

export class UsageError extends Error {
  override name = 'UsageError';
}

export type FlagSpec =
  | { type: 'boolean' }
  | { type: 'string'; choices?: readonly string[] }
  | { type: 'int'; min?: number; max?: number }
  | { type: 'number'; min?: number }
  | { type: 'list' };

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
        throw new UsageError(`unknown option ${arg} (options are written --name)`);
      }
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const flag = spec[name];
    if (!flag) {
      const known = Object.keys(spec).map((k) => `--${k}`);
      throw new UsageError(`unknown option --${name}${known.length ? ` (expected one of: ${known.join(', ')})` : ''}`);
    }
    if (name in flags) throw new UsageError(`--${name} was given twice`);
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
    flags[name] = convert(name, flag, raw);
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
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'boolean':
      throw new Error('unreachable: boolean flags are handled by the caller');
  }
}

/** Exactly `count` positionals, or a UsageError naming what is missing or extra. */
export function expectPositionals(positionals: string[], names: readonly string[], usage: string): string[] {
  if (positionals.length < names.length) {
    throw new UsageError(`missing ${names.slice(positionals.length).join(' and ')}\nusage: ${usage}`);
  }
  if (positionals.length > names.length) {
    const extra = positionals.slice(names.length).map((p) => JSON.stringify(p));
    throw new UsageError(`unexpected argument ${extra.join(' ')} (quote a task that has spaces)\nusage: ${usage}`);
  }
  return positionals;
}
