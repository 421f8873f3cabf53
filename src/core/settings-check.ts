// The one check of run settings, read off the table (run-settings.ts): the library (startAgent), the CLI, `POST
// /v1/runs` and the workflow's own input check all ask it, so a bad value is refused before a run starts with the
// same words wherever it came from, only its name said as its caller wrote it (a field, a flag). Pure and free of
// Node built-ins: the workflow bundle imports it. A JSON Schema is compiled by the caller's `compileSchema` (Ajv,
// outside the workflow sandbox).
import type { AgentSettings } from './durable-state.js';
import { isObject, kindOf } from './is-object.js';
import type { RunPriority } from './priority.js';
import { utf8Bytes } from './run-state.js';
import { nearestName } from './suggest.js';
import {
  MAX_INPUT_BYTES,
  megabytes,
  RUN_SETTINGS,
  START_OPTIONS,
  tooLargeFix,
  type CheckContext,
  type RunSetting,
  type SettingNamer,
  type SettingSchema,
} from './run-settings.js';

export { MAX_INPUT_BYTES, taskSizeProblem } from './run-settings.js';

/** A setting that would fail, stall or silently misbehave a run: thrown before the run starts. `field` is the
 * AgentSettings key (e.g. `heartbeatTimeoutMs`); the message is one line naming it (its path, for a part of it). */
export class InvalidSettingsError extends Error {
  override name = 'InvalidSettingsError';
  constructor(
    readonly field: string,
    /** What is wrong with it, without its name (the CLI puts its flag's name there). */
    readonly problem: string,
    /** Where in it: `serverTools.webSearchMaxUses`; the field itself by default. */
    readonly path = field,
  ) {
    super(`invalid settings: ${path} ${problem}`);
  }
}

/** Settings a caller gave (flags, a request body) refused, in that caller's words: `field` names the setting. */
export class SettingsInputError extends Error {
  override name = 'SettingsInputError';
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

/** The client and the CLI pass Ajv's `compileSchema`; the workflow passes none, and only the schema's shape is
 * checked. `name` defaults to the field path, as the library and the HTTP body write it. */
export type SettingsCheckOptions = Partial<CheckContext>;

export interface SettingsProblem {
  field: string;
  /** Where in the field (`serverTools.tools[1]`). */
  path: string;
  problem: string;
}

/** The library's names: the field's path, and with a value, `field: value` as JSON writes it. */
export const fieldName: SettingNamer = (path, value) => (value === undefined ? path : `${path}: ${JSON.stringify(value)}`);

export const got = (value: unknown): string => {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  return kindOf(value);
};

/** What is wrong with `v` for `schema` (at `path` under the setting), or null: the schema keywords in words. */
function schemaProblem(schema: SettingSchema, v: unknown, path: string, unit = ''): { at: string; problem: string } | null {
  const no = (problem: string) => ({ at: path, problem });
  const u = unit ? ` ${unit}` : '';
  switch (schema.type) {
    case 'integer':
    case 'number': {
      if (typeof v !== 'number' || !Number.isFinite(v) || (schema.type === 'integer' && !Number.isInteger(v))) {
        return no(`must be ${schema.type === 'integer' ? 'a whole number' : 'a number'}${unit ? ` of ${unit === 'ms' ? 'milliseconds' : unit}` : ''} (got ${got(v)})`);
      }
      if (schema.minimum !== undefined && v < schema.minimum) return no(`must be at least ${schema.minimum}${u} (got ${v}${u})`);
      if (schema.exclusiveMinimum !== undefined && v <= schema.exclusiveMinimum) return no(`must be more than ${schema.exclusiveMinimum}${u} (got ${v}${u})`);
      if (schema.maximum !== undefined && v > schema.maximum) return no(`must be at most ${schema.maximum}${u} (got ${v}${u})`);
      return null;
    }
    case 'boolean':
      return typeof v === 'boolean' ? null : no(`must be true or false (got ${got(v)})`);
    case 'string':
      if (typeof v !== 'string') return no(`must be ${schema.enum ? `one of ${schema.enum.join(', ')}` : 'a string'} (got ${got(v)})`);
      if (schema.enum && !schema.enum.includes(v)) {
        const near = nearestName(v, schema.enum);
        return no(`must be one of ${schema.enum.join(', ')} (got ${got(v)}${near ? `; did you mean "${near}"?` : ''})`);
      }
      return schema.minLength && v.trim().length < schema.minLength ? no('must not be empty') : null;
    case 'array': {
      if (!Array.isArray(v)) return no(`must be an array${schema.items?.type === 'string' ? ' of strings' : ''} (got ${got(v)})`);
      if (schema.maxItems !== undefined && v.length > schema.maxItems) return no(`holds ${v.length} items: at most ${schema.maxItems}`);
      for (const [i, item] of v.entries()) {
        const problem = schema.items && schemaProblem(schema.items, item, `${path}[${i}]`);
        if (problem) return problem;
      }
      return null;
    }
    case 'object': {
      if (!isObject(v)) return no(`must be an object (got ${got(v)})`);
      for (const key of schema.required ?? []) if (v[key] === undefined) return { at: `${path}.${key}`, problem: 'is missing' };
      for (const [key, value] of Object.entries(v)) {
        const property = schema.properties?.[key] ?? schema.additionalProperties;
        const problem = property && value !== undefined && schemaProblem(property, value, `${path}.${key}`);
        if (problem) return problem;
      }
      return null;
    }
  }
}

/** The first problem with one setting's value: its schema, then what the schema cannot say. */
function valueProblem(field: string, spec: RunSetting, value: unknown, all: Record<string, unknown>, ctx: CheckContext): SettingsProblem | null {
  const found = schemaProblem(spec.schema, value, '', spec.unit);
  const refined = found ?? spec.refine?.(value as never, all, ctx) ?? null;
  if (!refined) return null;
  const { at = '', problem } = typeof refined === 'string' ? { problem: refined } : refined;
  return { field, path: `${field}${at}`, problem };
}

/** The first problem among `values` for `table`'s entries, or null. An absent optional field (undefined) is fine; a
 * field the table does not know is left alone (a newer client may send it). `given`: only the fields `values` has,
 * in its order, none missing (a caller's values before the defaults fill the rest). */
function tableProblem(table: Record<string, RunSetting>, values: Record<string, unknown>, options: SettingsCheckOptions, given = false): SettingsProblem | null {
  const ctx: CheckContext = { compileSchema: options.compileSchema, name: options.name ?? fieldName };
  for (const field of Object.keys(given ? values : table)) {
    const spec = table[field];
    const value = values[field];
    if (!spec) continue;
    if (value === undefined) {
      if (spec.required && !given) return { field, path: field, problem: 'is missing (start from defaultSettings())' };
      continue;
    }
    const problem = valueProblem(field, spec, value, values, ctx);
    if (problem) return problem;
  }
  return null;
}

/** The first problem with `settings`, or null. */
export function settingsProblem(settings: unknown, options: SettingsCheckOptions = {}): SettingsProblem | null {
  if (!isObject(settings)) return { field: 'settings', path: 'settings', problem: `must be an object (got ${got(settings)})` };
  return tableProblem(RUN_SETTINGS, settings, options);
}

/** `settings`, checked: throws InvalidSettingsError naming the first bad field. */
export function checkAgentSettings<T extends AgentSettings>(settings: T, options?: SettingsCheckOptions): T {
  const found = settingsProblem(settings, options);
  if (found) throw new InvalidSettingsError(found.field, found.problem, found.path);
  return settings;
}

/** What is wrong with a start's priority (one line, naming the field as the table does), or null. */
export function priorityProblem(p: RunPriority, options: SettingsCheckOptions = {}): string | null {
  const found = tableProblem(START_OPTIONS, { priority: p.priorityKey, fairnessKey: p.fairnessKey, fairnessWeight: p.fairnessWeight }, options);
  return found ? `${(options.name ?? fieldName)(found.path)} ${found.problem}` : null;
}

/** The first problem with the values a caller gave for some settings and start options (a request body, flags),
 * before defaults fill the rest: only the fields given are checked, against each other (what a default changes is
 * checked once the defaults are in, by checkAgentSettings). */
export function givenProblem(values: Record<string, unknown>, options: SettingsCheckOptions = {}): SettingsProblem | null {
  return tableProblem({ ...RUN_SETTINGS, ...START_OPTIONS }, values, options, true);
}

/** A run's whole input: a task (a non-empty string) and checked settings that fit in one payload together. */
export function checkAgentInput(task: unknown, settings: AgentSettings, options?: SettingsCheckOptions): void {
  if (typeof task !== 'string') throw new InvalidSettingsError('task', `must be a string (got ${got(task)})`);
  checkAgentSettings(settings, options);
  const bytes = utf8Bytes(JSON.stringify({ task, settings }));
  if (bytes > MAX_INPUT_BYTES) {
    throw new InvalidSettingsError('task', `and settings are ${megabytes(bytes)} MB together: ${tooLargeFix('task or the system prompt')}`);
  }
}
