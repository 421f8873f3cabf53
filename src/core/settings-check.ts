// The one check of AgentSettings: the CLI (settingsFromFlags), the library (startAgent), `serve` (through the CLI's
// flags) and the workflow's own input check all ask `settingsProblem`, so a bad value is refused before a run
// starts, with a message that names the field (a sub-agent's settings are checked when its child run starts). Pure and free of Node built-ins: the workflow bundle imports it.
// A JSON Schema is compiled by the caller's `compileSchema` (Ajv, outside the workflow sandbox).
import type { AgentSettings } from './durable-state.js';
import { EFFORTS, SERVER_TOOL_NAMES, type GuardName } from './durable-state.js';
import { contextWindowTokens, MIN_COMPACT_AT_TOKENS, SUMMARY_GUARDS } from './policies.js';

export { SUMMARY_GUARDS };
import { utf8Bytes } from './run-state.js';
import { MAX_WEBHOOKS, webhookUrlProblem } from './webhooks.js';


/** The bounds of every numeric run setting: the one table the library's check, the CLI's flags (and so the HTTP
 * API's body, which is checked as the flags are) and the OpenAPI document read, so that all three refuse the same
 * values with the same words. */
export const SETTING_BOUNDS = {
  maxSteps: { whole: true, min: 1, max: 10_000 },
  maxOutputTokens: { whole: true, min: 1, max: 128_000 },
  budgetTokens: { whole: true, min: 1 },
  budgetUsd: { whole: false, min: 0 },
  thinkingBudget: { whole: true, min: 1024 },
  continueAsNewAfterSteps: { whole: true, min: 1 },
  maxToolOutputChars: { whole: true, min: 100, max: 1_500_000 },
  contextClearAtTokens: { whole: true, min: 1 },
  compactAt: { whole: true, min: MIN_COMPACT_AT_TOKENS },
  maxAgentDepth: { whole: true, min: 1, max: 10 },
} as const satisfies Partial<Record<keyof AgentSettings, { whole: boolean; min: number; max?: number }>>;

type Bounds = { whole: boolean; min: number; max?: number };

/** What is wrong with `value` for `bounds`, in the words the CLI's flag parser uses too (src/core/args.ts): "must be
 * a whole number", "must be at least N", "must be at most N", each followed by what was given. */
export function boundsProblem(value: unknown, bounds: Bounds): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || (bounds.whole && !Number.isInteger(value))) {
    return `must be ${bounds.whole ? 'a whole number' : 'a number'} (got ${typeof value === 'string' ? JSON.stringify(value) : got(value)})`;
  }
  if (value < bounds.min) return `must be at least ${bounds.min} (got ${value})`;
  if (bounds.max !== undefined && value > bounds.max) return `must be at most ${bounds.max} (got ${value})`;
  return null;
}

/** A run's input (task and settings) is one Temporal payload: the server refuses one over 2 MiB
 * (limit.blobSize.error), and the rest of the input needs some room. */
export const MAX_INPUT_BYTES = 1_800_000;

/** The smallest heartbeat or tool timeout: activities heartbeat at a third of the heartbeat timeout. */
export const MIN_TIMEOUT_MS = 1_000;

/** A setting that would fail, stall or silently misbehave a run: thrown before the run starts. `field` is the
 * AgentSettings key (e.g. `heartbeatTimeoutMs`); the message is one line naming it. */
export class InvalidSettingsError extends Error {
  override name = 'InvalidSettingsError';
  constructor(
    readonly field: string,
    /** What is wrong with it, without the field's name (the CLI puts its flag's name there). */
    readonly problem: string,
  ) {
    super(`invalid settings: ${field} ${problem}`);
  }
}

export interface SettingsCheckOptions {
  /** Compiles a JSON Schema: why it is unusable, or null (the client and the CLI pass Ajv's; the workflow passes
   * none, and only the schema's shape is checked). */
  compileSchema?: (schema: unknown) => string | null;
}

export interface SettingsProblem {
  field: string;
  problem: string;
}

type Rule = (value: unknown, settings: Record<string, unknown>, options: SettingsCheckOptions) => string | null;

const got = (value: unknown): string => {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  return typeof value;
};

const inBounds =
  (field: keyof typeof SETTING_BOUNDS): Rule =>
  (v) =>
    boundsProblem(v, SETTING_BOUNDS[field]);
const wholeAtLeast =
  (min: number): Rule =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min ? null : `must be a whole number >= ${min} (got ${got(v)})`;
const positiveMs: Rule = (v) =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? null : `must be a number of milliseconds > 0 (got ${got(v)})`;
const timeoutMs: Rule = (v) =>
  typeof v === 'number' && Number.isFinite(v) && v >= MIN_TIMEOUT_MS
    ? null
    : `must be a number of milliseconds >= ${MIN_TIMEOUT_MS} (got ${got(v)})`;
const boolean: Rule = (v) => (typeof v === 'boolean' ? null : `must be true or false (got ${got(v)})`);
const stringList: Rule = (v) =>
  Array.isArray(v) && v.every((t) => typeof t === 'string') ? null : `must be an array of names (got ${describeList(v)})`;

function describeList(v: unknown): string {
  if (!Array.isArray(v)) return got(v);
  const bad = v.find((t) => typeof t !== 'string');
  return `an array holding ${got(bad)}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const RULES: Record<keyof AgentSettings, Rule> = {
  model: (v) => (typeof v === 'string' && v.trim() !== '' ? null : `must be a model id (got ${got(v)})`),
  maxSteps: inBounds('maxSteps'),
  maxOutputTokens: inBounds('maxOutputTokens'),
  system: (v) => {
    if (typeof v !== 'string') return `must be a string (got ${got(v)})`;
    const bytes = utf8Bytes(v);
    return bytes > MAX_INPUT_BYTES ? `is ${megabytes(bytes)} MB: ${tooLargeFix('system prompt')}` : null;
  },
  tools: stringList,
  budgetTokens: inBounds('budgetTokens'),
  budgetUsd: inBounds('budgetUsd'),
  deadlineMs: positiveMs,
  summaryOn: (v) => {
    if (!Array.isArray(v)) return `must be an array of guard names (got ${got(v)})`;
    const bad = v.filter((g) => !SUMMARY_GUARDS.includes(g as GuardName));
    if (bad.length === 0) return null;
    return (
      `holds ${bad.map((g) => JSON.stringify(g)).join(', ')}, which no summary call can follow (use ${SUMMARY_GUARDS.join(', ')}, ` +
      'or [] for none; budget and deadline stop because the money or the time ran out)'
    );
  },
  prices: (v) => {
    if (!isObject(v)) return `must be an object of prices by model id (got ${got(v)})`;
    for (const [model, price] of Object.entries(v)) {
      const fields = ['input', 'output', 'cacheWrite', 'cacheRead'];
      const bad = fields.filter((f) => !isObject(price) || typeof price[f] !== 'number' || !Number.isFinite(price[f]) || (price[f] as number) < 0);
      if (bad.length > 0) return `.${model} needs ${fields.join(', ')} as numbers >= 0 (USD per million tokens; wrong: ${bad.join(', ')})`;
    }
    return null;
  },
  promptCaching: boolean,
  effort: (v) => (EFFORTS.includes(v as never) ? null : `must be one of ${EFFORTS.join(', ')} (got ${got(v)})`),
  thinkingBudget: (v, s) => {
    const problem = inBounds('thinkingBudget')(v, s, {});
    if (problem) return problem;
    const max = s.maxOutputTokens;
    return typeof max === 'number' && (v as number) >= max ? `${v} must be less than maxOutputTokens (${max})` : null;
  },
  outputSchema: (v, _s, options) => {
    if (!isObject(v)) return `must be a JSON Schema object (got ${got(v)})`;
    const problem = options.compileSchema?.(v);
    return problem ? `is not a usable JSON Schema: ${problem.replace(/^Invalid JSON Schema: /, '')}` : null;
  },
  approve: stringList,
  chat: boolean,
  idleTimeoutMs: positiveMs,
  searchAttributes: boolean,
  continueAsNewAfterSteps: inBounds('continueAsNewAfterSteps'),
  maxToolOutputChars: inBounds('maxToolOutputChars'),
  contextClearAtTokens: inBounds('contextClearAtTokens'),
  compactAt: (v, s) => {
    const problem = inBounds('compactAt')(v, s, {});
    if (problem) return problem;
    const model = typeof s.model === 'string' ? s.model : '';
    const window = contextWindowTokens(model);
    if ((v as number) > window) return `${v} is above the context window of ${model} (${window} tokens)`;
    return s.compaction === false ? 'cannot be given with compaction: false' : null;
  },
  compaction: boolean,
  heartbeatTimeoutMs: timeoutMs,
  serverTools: (v) => {
    if (!isObject(v) || !Array.isArray(v.tools)) return `must be { tools: [${SERVER_TOOL_NAMES.join(', ')}] } (got ${got(v)})`;
    const bad = v.tools.filter((t) => !SERVER_TOOL_NAMES.includes(t as never));
    if (bad.length > 0) return `.tools: unknown server tool ${bad.map((t) => JSON.stringify(t)).join(', ')} (use ${SERVER_TOOL_NAMES.join(', ')})`;
    if (v.webSearchMaxUses !== undefined && wholeAtLeast(1)(v.webSearchMaxUses, {}, {})) {
      return `.webSearchMaxUses ${wholeAtLeast(1)(v.webSearchMaxUses, {}, {})}`;
    }
    for (const key of ['allowedDomains', 'blockedDomains'] as const) {
      if (v[key] !== undefined && stringList(v[key], {}, {})) return `.${key} ${stringList(v[key], {}, {})}`;
    }
    return v.allowedDomains !== undefined && v.blockedDomains !== undefined ? 'takes allowedDomains or blockedDomains, not both' : null;
  },
  toolTimeoutMs: timeoutMs,
  localModelCalls: boolean,
  modelCalls: (v, s) => {
    if (v !== 'direct' && v !== 'batch') return `must be "direct" or "batch" (got ${got(v)})`;
    // A local call runs inside a workflow task, which cannot wait the minutes to hours a batch takes.
    return v === 'batch' && s.localModelCalls === true ? BATCH_WITH_LOCAL_CALLS : null;
  },
  batchFallback: (v) => (v === 'retry' || v === 'direct' ? null : `must be "retry" or "direct" (got ${got(v)})`),
  maxAgentDepth: inBounds('maxAgentDepth'),
  webhooks: (v) => {
    if (!Array.isArray(v)) return `must be an array of URLs (got ${got(v)})`;
    if (v.length > MAX_WEBHOOKS) return `holds ${v.length} URLs: at most ${MAX_WEBHOOKS}`;
    for (const url of v) {
      const problem = webhookUrlProblem(url);
      if (problem) return problem;
    }
    return null;
  },
};

const BATCH_WITH_LOCAL_CALLS =
  '"batch" cannot be combined with localModelCalls: a local model call runs inside a workflow task, which cannot wait ' +
  'the minutes to hours a Message Batch takes; drop one of the two settings';

const megabytes = (bytes: number) => (bytes / 1_000_000).toFixed(1);
const tooLargeFix = (what: string) =>
  `a run's input (task and settings) is one Temporal payload, at most 2 MB (${megabytes(MAX_INPUT_BYTES)} MB fit): ` +
  `shorten the ${what}, or let a tool fetch the data`;

/** The first problem with `settings`, or null. An absent optional field (undefined) is fine; a field this version
 * does not know is left alone (a newer client may send it). */
export function settingsProblem(settings: unknown, options: SettingsCheckOptions = {}): SettingsProblem | null {
  if (!isObject(settings)) return { field: 'settings', problem: `must be an object (got ${got(settings)})` };
  for (const [field, rule] of Object.entries(RULES)) {
    const value = settings[field];
    const required = field === 'model' || field === 'maxSteps' || field === 'maxOutputTokens' || field === 'tools' || field === 'summaryOn';
    if (value === undefined && !required) continue;
    const problem = value === undefined ? 'is missing (start from defaultSettings())' : rule(value, settings, options);
    if (problem) return { field, problem };
  }
  return null;
}

/** `settings`, checked: throws InvalidSettingsError naming the first bad field. */
export function checkAgentSettings<T extends AgentSettings>(settings: T, options?: SettingsCheckOptions): T {
  const found = settingsProblem(settings, options);
  if (found) throw new InvalidSettingsError(found.field, found.problem);
  return settings;
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
