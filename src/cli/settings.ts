// The flags of `run` and `start`, derived from the table of run settings (src/core/run-settings.ts): each setting's
// flag, its `--help` line the setting's doc line. The flags' values become the run's settings through the input
// `serve` uses too (src/config/run-input.ts), and every refusal names the flag.
import { readFileSync } from 'node:fs';
import { parseDuration } from '../core/duration.js';
import { parsePriceOverrides } from '../core/pricing.js';
import { ALL_SETTINGS, type FlagForm, type SettingFlag, type SettingNamer, type SettingSchema } from '../core/run-settings.js';
import { SettingsInputError } from '../core/settings-check.js';
import { UsageError, type FlagSpec, type Parsed } from '../core/args.js';
import { runInput, type RunInput } from '../config/run-input.js';
import { toolCatalog, type ToolCatalog } from '../config/tool-names.js';
import { validateJsonSchema } from '../tools/validate.js';
import { CONFIG_FLAG } from './config.js';

/** Where a flag's value goes: a setting, or a property of one (`--web-search-max-uses`: serverTools.webSearchMaxUses). */
interface FlagTarget {
  flag: string;
  setting: string;
  property?: string;
  form?: FlagForm;
  on?: string;
}

function flagSpec(schema: SettingSchema, flag: Omit<SettingFlag, 'name'>, byDefault?: string): FlagSpec {
  const choices = schema.enum ?? schema.items?.enum;
  const said = [
    `${schema.description}${choices ? `: ${choices.join(', ')}` : ''}`,
    flag.form === 'duration' && !byDefault ? ' (90s, 10m, 2h, 1h30m)' : '',
    byDefault ? ` (default: ${byDefault}${flag.form === 'none' ? '; none for none' : ''})` : '',
  ];
  const help = flag.help ?? said.join('');
  const value = flag.value !== undefined ? { value: flag.value } : {};
  if (flag.form === 'duration') return { type: 'string', value: 'D', help };
  if (flag.form === 'json-file') return { type: 'string', value: 'FILE', help };
  if (flag.form === 'off' || flag.form === 'on' || schema.type === 'boolean') return { type: 'boolean', help };
  if (schema.type === 'integer') return { type: 'int', help, ...value };
  if (schema.type === 'number') return { type: 'number', help, ...value };
  if (schema.type === 'array') return { type: 'list', help, ...value, ...(flag.repeatable ? { repeatable: true } : {}) };
  return { type: 'string', help, ...value };
}

const SETTING_FLAGS: Record<string, FlagSpec> = {};
const TARGETS: FlagTarget[] = [];
for (const [setting, spec] of ALL_SETTINGS) {
  const flag = spec.flag;
  if (!flag) continue;
  if (!flag.properties) {
    SETTING_FLAGS[flag.name] = flagSpec(spec.schema, flag, spec.default);
    TARGETS.push({ flag: flag.name, setting, form: flag.form, on: flag.on });
    continue;
  }
  // An object setting: one flag per property, the setting's own flag for its main one.
  const main = Object.keys(spec.schema.properties ?? {}).find((p) => !Object.values(flag.properties ?? {}).includes(p));
  for (const [name, property] of [[flag.name, main], ...Object.entries(flag.properties)] as Array<[string, string]>) {
    const schema = spec.schema.properties![property];
    SETTING_FLAGS[name] = flagSpec(schema, {});
    TARGETS.push({ flag: name, setting, property });
  }
}

const OWN_FLAGS = {
  json: { type: 'boolean', help: 'print exactly one JSON document' },
  id: { type: 'string', value: 'ID', help: 'workflow id; when a run with it exists, attach to it instead of starting another' },
  'task-file': { type: 'string', value: 'FILE', help: 'read the task from FILE (- for standard input) instead of the argument' },
} satisfies Record<string, FlagSpec>;

/** The flags of `start`: its own, one per setting (from the table), and --config. */
export const START_FLAGS: typeof OWN_FLAGS & typeof CONFIG_FLAG & Record<string, FlagSpec> = { ...OWN_FLAGS, ...SETTING_FLAGS, ...CONFIG_FLAG };

const SCRIPTED_FLAG = {
  scripted: { type: 'boolean', help: 'use the offline scripted model (AGENT_SCRIPT, else the France demo) instead of Claude' },
} satisfies Record<string, FlagSpec>;

export const RUN_FLAGS: typeof START_FLAGS & typeof SCRIPTED_FLAG = { ...START_FLAGS, ...SCRIPTED_FLAG };

export type StartFlags = Parsed<typeof START_FLAGS>['flags'];

/** A setting (or a part of it) as the CLI names it: its flag, and with a value, the flag given it; a setting read
 * from a file, with the file the flags named (`--output-schema schema.json`). */
export const flagName = (path: string, value?: unknown, flags: StartFlags = {}): string => {
  const bare = path.replace(/\[\d+\]$/, '');
  const [setting, property] = bare.split('.');
  const target = TARGETS.find((t) => t.setting === setting && (t.property === undefined || t.property === property)) ?? TARGETS.find((t) => t.setting === setting);
  if (!target) return path;
  if (value === undefined && target.form === 'json-file' && flags[target.flag] !== undefined) return `--${target.flag} ${String(flags[target.flag])}`;
  if (value === undefined || typeof value === 'boolean' || target.form === 'on') return `--${target.flag}`;
  return `--${target.flag} ${Array.isArray(value) ? value.join(',') : String(value)}`;
};

/** The values the flags give, by setting name (a flag not given: absent). */
export function valuesFromFlags(flags: StartFlags): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const { flag, setting, property, form, on } of TARGETS) {
    const raw = flags[flag];
    if (raw === undefined) continue;
    const value = setting === 'prices' ? readPrices(raw as string) : form === 'on' ? (raw ? on : undefined) : fromFlag(flag, form, raw);
    if (value === undefined) continue;
    if (property) values[setting] = { ...(values[setting] as object | undefined), [property]: value };
    else values[setting] = value;
  }
  return values;
}

function fromFlag(flag: string, form: FlagForm | undefined, raw: unknown): unknown {
  switch (form) {
    case 'duration':
      try {
        return parseDuration(raw as string);
      } catch (err) {
        throw new UsageError(`--${flag}: ${(err as Error).message}`);
      }
    case 'off':
      return raw ? false : undefined;
    case 'json-file':
      return readJson(raw as string, `--${flag}`);
    case 'none':
      return (raw as string[]).length === 1 && (raw as string[])[0] === 'none' ? [] : raw;
    default:
      return raw;
  }
}

/** The run's settings and priority from the flags; `catalog`: the tools the CLI knows of (the built-ins, and the
 * config file's tools and MCP servers). A UsageError names the flag. */
export function runFromFlags(flags: StartFlags, catalog: ToolCatalog = toolCatalog({})): RunInput {
  return runFromValues(valuesFromFlags(flags), catalog, flags);
}

/** `runFromFlags` on values already read from `flags` (once: a file is read once). */
export function runFromValues(values: Record<string, unknown>, catalog: ToolCatalog, flags: StartFlags): RunInput {
  const name: SettingNamer = (path, value) => flagName(path, value, flags);
  try {
    return runInput(values, catalog, { name, compileSchema: validateJsonSchema });
  } catch (err) {
    throw err instanceof SettingsInputError ? new UsageError(err.message) : err;
  }
}

/** A duration flag (`90s`, `10m`, `2h`): a UsageError naming the flag for anything else or below `minMs`. */
export function durationFlag(flag: string, text: string, minMs = 1): number {
  const ms = fromFlag(flag, 'duration', text) as number;
  if (ms < minMs) throw new UsageError(`--${flag} must be at least ${minMs} ms (got "${text}")`);
  return ms;
}

function readJson(file: string, flag: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${flag}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${flag}: ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

function readPrices(file: string) {
  try {
    return parsePriceOverrides(readJson(file, '--prices'), file);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--prices: ${(err as Error).message}`);
  }
}

/** The settings of `flags` (their tools checked against `catalog`): `runFromFlags(...).settings`. */
export const settingsFromFlags = (flags: StartFlags, catalog: ToolCatalog = toolCatalog({})) => runFromFlags(flags, catalog).settings;
