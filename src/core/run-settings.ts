// THE table of run settings: every setting a run takes, once: its JSON Schema (type, bounds, and its doc line as
// `description`), its default as the docs say it, its flag of `run`/`start`, and whether `POST /v1/runs` takes it.
// Everything else is derived from it: the library's check (settings-check.ts), the CLI's flags and how they become
// settings (cli/settings.ts), the HTTP body's check (serve/run-request.ts), the OpenAPI request body
// (serve/openapi.ts) and the settings table of docs/cli.md (devtools/cli-reference.ts). Adding a setting is one entry here
// (and its field in AgentSettings, which `satisfies` below makes the compiler ask for).
// Pure and free of Node built-ins: the workflow bundle imports it, through the check.
import type { AgentSettings } from './durable-state.js';
import { EFFORTS, SERVER_TOOL_NAMES } from './durable-state.js';
import { contextWindowTokens, DEFAULTS, MIN_COMPACT_AT_TOKENS, SUMMARY_GUARDS } from './policies.js';
import { FAIRNESS_KEY_MAX_BYTES, PRIORITY_MAX, PRIORITY_MIN } from './priority.js';
import { utf8Bytes } from './run-state.js';
import { MAX_WEBHOOKS, webhookUrlProblem } from './webhooks.js';

/** The JSON Schema keywords the settings use (the check interprets exactly these; OpenAPI shows them as they are). */
export interface SettingSchema {
  type: 'integer' | 'number' | 'boolean' | 'string' | 'array' | 'object';
  /** The doc line: `--help`, the docs' table and the OpenAPI document show it. */
  description?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  enum?: readonly string[];
  items?: SettingSchema;
  maxItems?: number;
  properties?: Record<string, SettingSchema>;
  required?: readonly string[];
  additionalProperties?: SettingSchema;
}

/** How the flag's text becomes the setting: `duration` (90s, 10m → ms), `off` (`--no-x` sets false), `json-file`
 * (the JSON of a file), `none` (a list where `none` means []). Default: the flag's value as it is. */
export type FlagForm = 'duration' | 'off' | 'on' | 'json-file' | 'none';

export interface SettingFlag {
  name: string;
  form?: FlagForm;
  /** The value's name in `--help` (`--model ID`); by default N, X, D, FILE or a,b from the type and form. */
  value?: string;
  /** The `--help` line, for an `off` flag only (it says what the flag turns off); others show the doc line. */
  help?: string;
  /** For an `on` flag (`--batch`): the value it sets. */
  on?: string;
  /** May be given more than once (a URL may hold a comma). */
  repeatable?: boolean;
  /** Flags of the setting's properties (an object setting): flag name → property. */
  properties?: Record<string, string>;
}

/** The names a problem is said in: the library's and the HTTP body's field paths (`serverTools.webSearchMaxUses`),
 * or the CLI's flags (`--web-search-max-uses`). With a value: how that caller writes the setting set to it
 * (`compaction: false`, `--no-compaction`). */
export type SettingNamer = (path: string, value?: unknown) => string;

export interface CheckContext {
  /** Compiles a JSON Schema: why it is unusable, or null (outside the workflow: Ajv's). */
  compileSchema?: (schema: unknown) => string | null;
  name: SettingNamer;
}

/** A problem past the schema (another setting's value, a URL, a payload size): where (a path under the setting,
 * '' for the setting itself) and what, without the name. */
export type Refine = (value: never, all: Record<string, unknown>, ctx: CheckContext) => { at?: string; problem: string } | string | null;

export interface RunSetting {
  schema: SettingSchema & { description: string };
  /** The default as the docs say it; none: unset. */
  default?: string;
  /** Filled by defaultSettings(): the check refuses it missing. */
  required?: true;
  /** The unit of a number, said in the check's messages (`must be at least 1000 ms`). */
  unit?: 'ms';
  flag?: SettingFlag;
  /** Not a field of `POST /v1/runs` (default: it is). */
  http?: false;
  refine?: Refine;
}

const integer = (description: string, minimum: number, maximum?: number): SettingSchema & { description: string } =>
  ({ type: 'integer', description, minimum, ...(maximum !== undefined ? { maximum } : {}) });
const names = (description: string) => ({ type: 'array', description, items: { type: 'string' } }) as const;
const boolean = (description: string) => ({ type: 'boolean', description }) as const;
const ms = (description: string, min: { minimum: number } | { exclusiveMinimum: number }) => ({ type: 'number', description, ...min }) as const;
/** An entry: its schema, its flag (a name, or more), the rest. */
const setting = (schema: RunSetting['schema'], flag?: string | SettingFlag, more: Omit<RunSetting, 'schema' | 'flag'> = {}): RunSetting => ({
  schema,
  ...(flag === undefined ? {} : { flag: typeof flag === 'string' ? { name: flag } : flag }),
  ...more,
});
const required = true;
const PRICE_FIELDS = ['input', 'output', 'cacheWrite', 'cacheRead'];

/** The settings of a run (AgentSettings), in the order `--help` and the docs list them. */
export const RUN_SETTINGS = {
  model: setting({ type: 'string', minLength: 1, description: 'model id' }, { name: 'model', value: 'ID' }, { default: `$AGENT_MODEL or ${DEFAULTS.model}`, required }),
  maxSteps: setting(integer('step cap: model calls before the run stops; a summary call may follow', 1, 10_000), 'max-steps', { default: `${DEFAULTS.maxSteps}`, required }),
  maxOutputTokens: setting(integer('max_tokens of each model call', 1, 128_000), 'max-output-tokens', { default: `${DEFAULTS.maxOutputTokens}`, required }),
  system: setting({ type: 'string', description: 'system prompt' }, 'system', { refine: (v: string) => sizeProblem('system prompt', utf8Bytes(v)) }),
  tools: setting(names('tools the model may use'), 'tools', { default: "all: the built-ins, the config's tools, each MCP server's as <server>__*", required }),
  budgetTokens: setting(integer('stop when input+output+cache tokens, over the whole job, reach this', 1), 'budget-tokens'),
  budgetUsd: setting({ type: 'number', minimum: 0, description: 'stop when the cost reaches this many dollars (the price table, or prices)' }, 'budget-usd'),
  prices: setting(
    {
      type: 'object',
      description: "prices by model id (USD per million tokens: input, output, cacheWrite, cacheRead) over the built-in table's",
      additionalProperties: { type: 'object', required: PRICE_FIELDS, properties: Object.fromEntries(PRICE_FIELDS.map((k) => [k, { type: 'number', minimum: 0 }])) },
    },
    { name: 'prices', form: 'json-file' },
  ),
  deadlineMs: setting(ms('wall-clock limit of the whole job', { exclusiveMinimum: 0 }), { name: 'deadline', form: 'duration' }, { unit: 'ms' }),
  summaryOn: setting(
    { type: 'array', items: { type: 'string', enum: SUMMARY_GUARDS }, description: 'guards followed by a last tool-less summary call' },
    { name: 'summary-on', form: 'none' },
    { default: SUMMARY_GUARDS.join(','), required },
  ),
  outputSchema: setting(
    { type: 'object', description: 'JSON Schema of the final answer: adds a submit_answer tool; the result carries output' },
    { name: 'output-schema', form: 'json-file' },
    { refine: (v: object, _a, ctx) => ((p) => (p ? `is not a usable JSON Schema: ${p.replace(/^Invalid JSON Schema: /, '')}` : null))(ctx.compileSchema?.(v)) },
  ),
  effort: setting({ type: 'string', enum: EFFORTS, description: 'output_config.effort' }, { name: 'effort', value: 'LEVEL' }),
  thinkingBudget: setting(integer('extended thinking budget in tokens (less than the max output tokens)', 1024), 'thinking', {
    refine: (v: number, all, ctx) =>
      typeof all.maxOutputTokens === 'number' && v >= all.maxOutputTokens ? `must be less than ${ctx.name('maxOutputTokens')} (${all.maxOutputTokens}; got ${v})` : null,
  }),
  promptCaching: setting(
    boolean('mark the conversation prefix for prompt caching'),
    { name: 'no-prompt-cache', form: 'off', help: 'do not mark the conversation prefix for prompt caching' },
    { default: 'true', required },
  ),
  approve: setting(names('tools whose every call waits for approve or deny'), 'approve'),
  chat: setting(boolean('keep the run open after its answer for follow-ups (send), until close'), 'chat'),
  idleTimeoutMs: setting(ms('a chat run ends after this long without a message', { exclusiveMinimum: 0 }), { name: 'idle-timeout', form: 'duration' }, { default: '1h', unit: 'ms' }),
  heartbeatTimeoutMs: setting(ms('how soon a worker that died mid-call is noticed and the call retried', { minimum: 1000 }), { name: 'heartbeat-timeout', form: 'duration' }, { default: '10s', unit: 'ms' }),
  toolTimeoutMs: setting(ms("timeout of a tool call whose tool sets none (a tool's own timeout wins)", { minimum: 1000 }), { name: 'tool-timeout', form: 'duration' }, { default: '5m', unit: 'ms' }),
  localModelCalls: setting(boolean('run each model call inside the workflow task (a local activity): faster turns, no live progress of a call'), 'local-model-calls'),
  continueAsNewAfterSteps: setting(integer('continue-as-new after this many model calls in one run', 1), 'continue-as-new-after', { default: 'when the server suggests it' }),
  maxToolOutputChars: setting(integer('truncate tool output above this many characters, with a note to the model', 100, 1_500_000), 'max-tool-output', { default: '100000' }),
  maxAgentDepth: setting(integer('how deep sub-agents may nest: a run at this depth delegates no further', 1, 10), 'max-agent-depth', { default: "the config's maxAgentDepth, else 2" }),
  contextClearAtTokens: setting(integer('clear old tool results from requests once a prompt reaches this many tokens', 1), 'context-clear-at', { default: 'off; 150000 with compaction off' }),
  compactAt: setting(integer("compact the conversation (server-side) once a prompt reaches this many tokens (up to the model's window)", MIN_COMPACT_AT_TOKENS), 'compact-at', {
    default: `${DEFAULTS.compactAtTokens}`,
    refine: (v: number, all, ctx) => {
      // Without a model (a caller's values before the defaults), the window is checked once the model is known.
      const window = typeof all.model === 'string' ? contextWindowTokens(all.model) : Infinity;
      if (v > window) return `${v} is above the context window of ${all.model as string} (${window} tokens)`;
      return all.compaction === false ? `cannot be given with ${ctx.name('compaction', false)}` : null;
    },
  }),
  compaction: setting(
    boolean('compaction (off: the run stops when the conversation outgrows the context window)'),
    { name: 'no-compaction', form: 'off', help: 'no compaction: the run stops when the conversation outgrows the context window' },
    { default: 'true' },
  ),
  webhooks: setting(
    { ...names("URLs the run's events (run.completed, approval.needed, ...) are POSTed to, signed with $DURABLE_AGENT_WEBHOOK_SECRET"), maxItems: MAX_WEBHOOKS },
    { name: 'webhook', value: 'URL', repeatable: true },
    { refine: (v: unknown[]) => v.map((url, i) => ({ at: `[${i}]`, problem: webhookUrlProblem(url) })).find((p): p is { at: string; problem: string } => p.problem !== null) ?? null },
  ),
  serverTools: setting(
    {
      type: 'object',
      description: "Claude's server tools the model may use",
      properties: {
        tools: { type: 'array', items: { type: 'string', enum: SERVER_TOOL_NAMES }, description: "Claude's server tools the model may use" },
        webSearchMaxUses: integer('at most this many web searches per request (with web_search)', 1, 1000),
        allowedDomains: names('web_search and web_fetch use only these domains (e.g. insee.fr,wikipedia.org)'),
        blockedDomains: names('web_search and web_fetch never use these domains (not with allowed domains)'),
      },
    },
    { name: 'server-tools', properties: { 'web-search-max-uses': 'webSearchMaxUses', 'allowed-domains': 'allowedDomains', 'blocked-domains': 'blockedDomains' } },
    { refine: serverToolsProblem },
  ),
  modelCalls: setting(
    { type: 'string', enum: ['direct', 'batch'], description: 'model calls through the Message Batches API (batch): half the price, answers in minutes to 24h' },
    { name: 'batch', form: 'on', on: 'batch', help: 'model calls through the Message Batches API: half the price, answers in minutes to 24h (docs/background-agents.md)' },
    {
      default: 'direct',
      // A local call runs inside a workflow task, which cannot wait the minutes to hours a batch takes.
      refine: (v: string, all, ctx) =>
        v === 'batch' && all.localModelCalls === true
          ? `cannot be combined with ${ctx.name('localModelCalls', true)}: a local model call runs inside a workflow task, which cannot wait the minutes to hours a Message Batch takes; drop one of the two settings`
          : null,
    },
  ),
  batchFallback: setting(
    { type: 'string', enum: ['retry', 'direct'], description: 'in batch mode: a request that errored or expired goes into a later batch (retry) or is made directly once (direct)' },
    { name: 'batch-fallback', value: 'HOW' },
    { default: 'retry' },
  ),
  searchAttributes: setting(boolean('write the Agent* search attributes (registered on the namespace)'), undefined, { default: 'when the namespace has them', http: false }),
} satisfies Record<keyof AgentSettings, RunSetting>;

/** What a start takes besides AgentSettings, in the same form: its sub-agents (as `agent__<name>` tools) and its
 * Temporal task priority. Checked with the settings, by the same code. */
export const START_OPTIONS = {
  agents: setting(names('sub-agents the model may delegate to, as agent__<name> tools'), { name: 'agents', form: 'none' }, { default: "all the config's agents" }),
  priority: setting(integer('Temporal task priority of the run and its calls: 1 (first) to 5 (last)', PRIORITY_MIN, PRIORITY_MAX), 'priority', { default: '3' }),
  fairnessKey: setting(
    { type: 'string', minLength: 1, description: "a tenant: runs of different keys share the queues fairly, whatever one key's backlog" },
    { name: 'fairness-key', value: 'KEY' },
    { refine: (v: string) => (utf8Bytes(v) > FAIRNESS_KEY_MAX_BYTES ? `is ${utf8Bytes(v)} bytes long: at most ${FAIRNESS_KEY_MAX_BYTES}` : null) },
  ),
  fairnessWeight: setting({ type: 'number', minimum: 0.001, maximum: 1000, description: "the fairness key's share relative to others (needs a fairness key)" }, 'fairness-weight', {
    default: '1',
    refine: (_v: number, all, ctx) => (all.fairnessKey === undefined ? `needs ${ctx.name('fairnessKey')} (the key it weighs)` : null),
  }),
} satisfies Record<string, RunSetting>;

export type SettingName = keyof typeof RUN_SETTINGS | keyof typeof START_OPTIONS;

/** Every entry, settings first. */
export const ALL_SETTINGS: ReadonlyArray<[SettingName, RunSetting]> = [
  ...(Object.entries(RUN_SETTINGS) as Array<[SettingName, RunSetting]>),
  ...(Object.entries(START_OPTIONS) as Array<[SettingName, RunSetting]>),
];

/** The fields `POST /v1/runs` takes besides task and id, each with its schema. */
export function httpFields(): Array<[SettingName, RunSetting]> {
  return ALL_SETTINGS.filter(([, s]) => s.http !== false);
}

function serverToolsProblem(v: { tools?: string[]; webSearchMaxUses?: number; allowedDomains?: string[]; blockedDomains?: string[] }, _all: unknown, ctx: CheckContext) {
  const name = (p: string, value?: unknown) => ctx.name(`serverTools.${p}`, value);
  const tools = v.tools ?? [];
  if (v.webSearchMaxUses !== undefined && !tools.includes('web_search')) {
    return { at: '.webSearchMaxUses', problem: `applies to the web_search server tool: add ${name('tools', ['web_search'])}` };
  }
  for (const key of ['allowedDomains', 'blockedDomains'] as const) {
    const domains = v[key];
    if (domains === undefined) continue;
    if (!tools.some((t) => t === 'web_search' || t === 'web_fetch')) {
      return { at: `.${key}`, problem: `applies to the web_search and web_fetch server tools: add ${name('tools', ['web_search'])} (or web_fetch)` };
    }
    for (const d of domains) {
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(d)) return { at: `.${key}`, problem: `"${d}" has a scheme; give the domain alone (e.g. ${d.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')})` };
      if (!/^[^\s/]+\.[^\s/]+(\/\S*)?$/.test(d)) return { at: `.${key}`, problem: `"${d}" is not a domain (e.g. wikipedia.org)` };
    }
  }
  if (tools.length === 0) return { at: '.tools', problem: `needs at least one name (${SERVER_TOOL_NAMES.join(', ')})` };
  return v.allowedDomains !== undefined && v.blockedDomains !== undefined
    ? { at: '.blockedDomains', problem: `cannot be combined with ${name('allowedDomains')} (the API takes one or the other)` }
    : null;
}

/** A run's input (task and settings) is one Temporal payload: the server refuses one over 2 MiB
 * (limit.blobSize.error), and the rest of the input needs some room. */
export const MAX_INPUT_BYTES = 1_800_000;

export const megabytes = (bytes: number) => (bytes / 1_000_000).toFixed(1);

/** The payload limit, said with what to shorten. */
export const tooLargeFix = (what: string) =>
  `a run's input (task and settings) is one Temporal payload, at most 2 MB (${megabytes(MAX_INPUT_BYTES)} MB fit): ` +
  `shorten the ${what}, or let a tool fetch the data`;

/** Why `what`, `bytes` long, is too large for one payload (with the rest of the input), or null. */
const sizeProblem = (what: string, bytes: number) => (bytes > MAX_INPUT_BYTES ? `is ${megabytes(bytes)} MB: ${tooLargeFix(what)}` : null);

/** Why `task` is too large for one payload (with the settings), or null. */
export const taskSizeProblem = (task: string): string | null => sizeProblem('task', utf8Bytes(JSON.stringify(task)));
