// What a command is: its usage line, what it does, its flags (each with its one-line help) and examples, next to
// the code that runs it. `main.ts` lists the commands; `<command> --help` prints `commandHelp`.
import { flagValueName, type FlagSpec, type Parsed } from '../core/args.js';

export interface CommandDef<F extends Record<string, FlagSpec> = Record<string, FlagSpec>> {
  /** After the program name: `run "<task>" [options]`. */
  usage: string;
  /** What the command does, in a few lines. */
  description: string;
  flags: F;
  /** Whole command lines, after the program name: `run "What is 6*7?" --scripted`. */
  examples: readonly string[];
  run(parsed: Parsed<F>): Promise<number>;
}

/** Keeps the flag types of `def` for its `run`. */
export function defineCommand<F extends Record<string, FlagSpec>>(def: CommandDef<F>): CommandDef<F> {
  return def;
}

const PROGRAM = 'durable-agent';

/** `<command> --help`: usage, description, flags with their help, examples. The same text is docs/cli.md's
 * (devtools/cli-reference.ts), there without what differs by machine (`here: false`). */
export function commandHelp(def: CommandDef, { here = true }: { here?: boolean } = {}): string {
  const flags = Object.entries(def.flags).map(([name, spec]) => {
    const value = flagValueName(spec);
    const help = here && spec.here ? `${spec.help}; ${spec.here()}` : spec.help;
    return [`--${name}${value ? ` ${value}` : ''}`, help] as const;
  });
  const width = Math.min(28, Math.max(0, ...flags.map(([left]) => left.length)) + 2);
  const flagLines = flags.map(([left, help]) =>
    left.length + 2 > width ? `  ${left}\n  ${' '.repeat(width)}${help}` : `  ${left.padEnd(width)}${help}`,
  );
  return [
    `usage: ${PROGRAM} ${def.usage}`,
    '',
    def.description.trimEnd(),
    '',
    flagLines.length > 0 ? `options:\n${flagLines.join('\n')}` : 'options: none',
    '',
    'examples:',
    ...def.examples.map((e) => `  ${PROGRAM} ${e}`),
    '',
    `(from a clone of the project: npm run --silent agent -- ${def.usage.split(' ')[0]} ...)`,
    '',
  ].join('\n');
}

/** `--help` or `-h` among the arguments (before a `--`, after which words are positionals). */
export function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}
