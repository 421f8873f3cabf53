// THE table of run settings: every setting a run takes, once: its JSON Schema (type, bounds, and its doc line as
// `description`), its default as the docs say it, its flag of `run`/`start`, and whether `POST /v1/runs` takes it.
// Everything else is derived from it: the library's check (settings-check.ts), the CLI's flags and how they become
// settings (cli/settings.ts), the HTTP body's check (serve/run-request.ts), the OpenAPI request body
// (serve/openapi.ts) and the settings table of docs/cli.md (cli/reference.ts). Adding a setting is one entry here
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
export type FlagForm = 'duration' | 'off' | 'json-file' | 'none';

export interface SettingFlag {
  name: string;
  form?: FlagForm;
  /** The value's name in `--help` (`--model ID`); by default N, X, D, FILE or a,b from the type and form. */
  value?: string;
  /** The `--help` line, for an `off` flag only (it says what the flag turns off); others show the doc line. */
  help?: string;
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

const integer = (description: string, minimum: number, maximum?: number) =>
  ({ type: 'integer', description, minimum, ...(maximum !== undefined ? { maximum } : {}) }) as const;
const names = (description: string) => ({ type: 'array', description, items: { type: 'string' } }) as const;
const boolean = (description: string) => ({ type: 'boolean', description }) as const;
const ms = (description: string, min: { minimum: number } | { exclusiveMinimum: number }) => ({ type: 'number', description, ...min }) as const;

/** The settings of a run (AgentSettings), in the order `--help` and the docs list them. */
export const RUN_SETTINGS = {
  model: {
    schema: { type: 'string', minLength: 1, description: 'model id' },
    default: `$AGENT_MODEL or ${DEFAULTS.model}`,
    required: true,
    flag: { name: 'model', value: 'ID' },
  },
  maxSteps: {
    schema: integer('step cap: model calls before the run stops; a summary call may follow', 1, 10_000),
    default: String(DEFAULTS.maxSteps),
    required: true,
    flag: { name: 'max-steps' },
  },
  maxOutputTokens: {
    schema: integer('max_tokens of each model call', 1, 128_000),
    default: String(DEFAULTS.maxOutputTokens),
    required: true,
    flag: { name: 'max-output-tokens' },
  },
  system: { schema: { type: 'string', description: 'system prompt' }, flag: { name: 'system' }, refine: (v: string, _a, ctx) => systemSize(v, ctx) },
  tools: {
    schema: names('tools the model may use'),
    default: "all: the built-ins, the config's tools, each MCP server's as <server>__*",
    required: true,
    flag: { name: 'tools' },
  },
  budgetTokens: { schema: integer('stop when input+output+cache tokens, over the whole job, reach this', 1), flag: { name: 'budget-tokens' } },
  budgetUsd: {
    schema: { type: 'number', minimum: 0, description: 'stop when the cost reaches this many dollars (the price table, or prices)' },
    flag: { name: 'budget-usd' },
  },
  prices: {
    schema: {
      type: 'object',
      description: "prices by model id (USD per million tokens: input, output, cacheWrite, cacheRead) over the built-in table's",
      additionalProperties: {
        type: 'object',
        required: ['input', 'output', 'cacheWrite', 'cacheRead'],
        properties: Object.fromEntries(['input', 'output', 'cacheWrite', 'cacheRead'].map((k) => [k, { type: 'number', minimum: 0 }])),
      },
    },
    flag: { name: 'prices', form: 'json-file' },
  },
  deadlineMs: { schema: ms('wall-clock limit of the whole job', { exclusiveMinimum: 0 }), unit: 'ms', flag: { name: 'deadline', form: 'duration' } },
  summaryOn: {
    schema: {
      type: 'array',
      items: { type: 'string', enum: SUMMARY_GUARDS },
      description: 'guards followed by a last tool-less summary call',
    },
    default: SUMMARY_GUARDS.join(','),
    required: true,
    flag: { name: 'summary-on', form: 'none' },
  },
  outputSchema: {
    schema: { type: 'object', description: 'JSON Schema of the final answer: adds a submit_answer tool; the result carries output' },
    flag: { name: 'output-schema', form: 'json-file' },
    refine: (v: object, _a, ctx) => {
      const problem = ctx.compileSchema?.(v);
      return problem ? `is not a usable JSON Schema: ${problem.replace(/^Invalid JSON Schema: /, '')}` : null;
    },
  },
  effort: { schema: { type: 'string', enum: EFFORTS, description: 'output_config.effort' }, flag: { name: 'effort', value: 'LEVEL' } },
  thinkingBudget: {
    schema: integer('extended thinking budget in tokens (less than the max output tokens)', 1024),
    flag: { name: 'thinking' },
    refine: (v: number, all, ctx) =>
      typeof all.maxOutputTokens === 'number' && v >= all.maxOutputTokens ? `must be less than ${ctx.name('maxOutputTokens')} (${all.maxOutputTokens}; got ${v})` : null,
  },
  promptCaching: {
    schema: boolean('mark the conversation prefix for prompt caching'),
    default: 'true',
    required: true,
    flag: { name: 'no-prompt-cache', form: 'off', help: 'do not mark the conversation prefix for prompt caching' },
  },
  approve: { schema: names('tools whose every call waits for approve or deny'), flag: { name: 'approve' } },
  chat: { schema: boolean('keep the run open after its answer for follow-ups (send), until close'), flag: { name: 'chat' } },
  idleTimeoutMs: {
    schema: ms('a chat run ends after this long without a message', { exclusiveMinimum: 0 }),
    default: '1h',
    unit: 'ms',
    flag: { name: 'idle-timeout', form: 'duration' },
  },
  heartbeatTimeoutMs: {
    schema: ms('how soon a worker that died mid-call is noticed and the call retried', { minimum: 1000 }),
    default: '10s',
    unit: 'ms',
    flag: { name: 'heartbeat-timeout', form: 'duration' },
  },
  toolTimeoutMs: {
    schema: ms("timeout of a tool call whose tool sets none (a tool's own timeout wins)", { minimum: 1000 }),
    default: '5m',
    unit: 'ms',
    flag: { name: 'tool-timeout', form: 'duration' },
  },
  localModelCalls: {
    schema: boolean('run each model call inside the workflow task (a local activity): faster turns, no live progress of a call'),
    flag: { name: 'local-model-calls' },
  },
  continueAsNewAfterSteps: {
    schema: integer('continue-as-new after this many model calls in one run', 1),
    default: 'when the server suggests it',
    flag: { name: 'continue-as-new-after' },
  },
  maxToolOutputChars: {
    schema: integer('truncate tool output above this many characters, with a note to the model', 100, 1_500_000),
    default: '100000',
    flag: { name: 'max-tool-output' },
  },
  maxAgentDepth: {
    schema: integer('how deep sub-agents may nest: a run at this depth delegates no further', 1, 10),
    default: '2',
    flag: { name: 'max-agent-depth' },
  },
  contextClearAtTokens: {
    schema: integer('clear old tool results from requests once a prompt reaches this many tokens', 1),
    default: 'off; 150000 with compaction off',
    flag: { name: 'context-clear-at' },
  },
  compactAt: {
    schema: integer("compact the conversation (server-side) once a prompt reaches this many tokens (up to the model's window)", MIN_COMPACT_AT_TOKENS),
    default: String(DEFAULTS.compactAtTokens),
    flag: { name: 'compact-at' },
    refine: (v: number, all, ctx) => {
      const model = typeof all.model === 'string' ? all.model : '';
      const window = contextWindowTokens(model);
      if (v > window) return `${v} is above the context window of ${model || 'the model'} (${window} tokens)`;
      return all.compaction === false ? `cannot be given with ${ctx.name('compaction', false)}` : null;
    },
  },
  compaction: {
    schema: boolean('compaction (off: the run stops when the conversation outgrows the context window)'),
    default: 'true',
    flag: { name: 'no-compaction', form: 'off', help: 'no compaction: the run stops when the conversation outgrows the context window' },
  },
  webhooks: {
    schema: {
      type: 'array',
      items: { type: 'string' },
      maxItems: MAX_WEBHOOKS,
      description: "URLs the run's events (run.completed, approval.needed, ...) are POSTed to, signed with $DURABLE_AGENT_WEBHOOK_SECRET",
    },
    flag: { name: 'webhook', value: 'URL', repeatable: true },
    refine: (v: unknown[]) => {
      for (const [i, url] of v.entries()) {
        const problem = webhookUrlProblem(url);
        if (problem) return { at: `[${i}]`, problem };
      }
      return null;
    },
  },
  serverTools: {
    schema: {
      type: 'object',
      description: "Claude's server tools the model may use",
      properties: {
        tools: { type: 'array', items: { type: 'string', enum: SERVER_TOOL_NAMES }, description: "Claude's server tools the model may use" },
        webSearchMaxUses: integer('at most this many web searches per request (with web_search)', 1, 1000),
        allowedDomains: names('web_search and web_fetch use only these domains (e.g. insee.fr,wikipedia.org)'),
        blockedDomains: names('web_search and web_fetch never use these domains (not with allowed domains)'),
      },
    },
    flag: {
      name: 'server-tools',
      properties: { 'web-search-max-uses': 'webSearchMaxUses', 'allowed-domains': 'allowedDomains', 'blocked-domains': 'blockedDomains' },
    },
    refine: serverToolsProblem,
  },
  searchAttributes: {
    schema: boolean('write the Agent* search attributes (registered on the namespace)'),
    default: 'when the namespace has them',
    http: false,
  },
} as const satisfies Record<keyof AgentSettings, RunSetting>;

/** What a start takes besides AgentSettings, in the same form: its sub-agents (as `agent__<name>` tools) and its
 * Temporal task priority. Checked with the settings, by the same code. */
export const START_OPTIONS = {
  agents: {
    schema: names('sub-agents the model may delegate to, as agent__<name> tools'),
    default: "all the config's agents",
    flag: { name: 'agents', form: 'none' },
  },
  priority: {
    schema: integer('Temporal task priority of the run and its calls: 1 (first) to 5 (last)', PRIORITY_MIN, PRIORITY_MAX),
    default: '3',
    flag: { name: 'priority' },
  },
  fairnessKey: {
    schema: { type: 'string', minLength: 1, description: "a tenant: runs of different keys share the queues fairly, whatever one key's backlog" },
    flag: { name: 'fairness-key', value: 'KEY' },
    refine: (v: string) => {
      const bytes = new TextEncoder().encode(v).length;
      return bytes > FAIRNESS_KEY_MAX_BYTES ? `is ${bytes} bytes long: at most ${FAIRNESS_KEY_MAX_BYTES}` : null;
    },
  },
  fairnessWeight: {
    schema: { type: 'number', minimum: 0.001, maximum: 1000, description: "the fairness key's share relative to others (needs a fairness key)" },
    default: '1',
    flag: { name: 'fairness-weight' },
    refine: (_v: number, all, ctx) => (all.fairnessKey === undefined ? `needs ${ctx.name('fairnessKey')} (the key it weighs)` : null),
  },
} as const satisfies Record<string, RunSetting>;

export type StartOptionName = keyof typeof START_OPTIONS;
export type SettingName = keyof typeof RUN_SETTINGS | StartOptionName;

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

const megabytes = (bytes: number) => (bytes / 1_000_000).toFixed(1);

/** The payload limit, said with what to shorten. */
export const tooLargeFix = (what: string) =>
  `a run's input (task and settings) is one Temporal payload, at most 2 MB (${megabytes(MAX_INPUT_BYTES)} MB fit): ` +
  `shorten the ${what}, or let a tool fetch the data`;

function systemSize(v: string, _ctx: CheckContext): string | null {
  const bytes = utf8Bytes(v);
  return bytes > MAX_INPUT_BYTES ? `is ${megabytes(bytes)} MB: ${tooLargeFix('system prompt')}` : null;
}

/** Why `task` is too large for one payload (with the settings), or null. */
export function taskSizeProblem(task: string): string | null {
  const bytes = utf8Bytes(JSON.stringify(task));
  return bytes > MAX_INPUT_BYTES ? `is ${megabytes(bytes)} MB: ${tooLargeFix('task')}` : null;
}
