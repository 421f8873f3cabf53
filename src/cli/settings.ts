// The flags of `run` and `start`, and how they become the AgentSettings carried in the workflow input (so a
// run started on one machine keeps its limits on any worker that finishes it).
import { readFileSync } from 'node:fs';
import { defaultSettings } from '../core/settings.js';
import { parseDuration } from '../core/duration.js';
import { agentToolName } from '../core/sub-agents.js';
import { nearestName } from '../core/suggest.js';
import { DEFAULTS } from '../core/policies.js';
import { parsePriceOverrides, priceFor, type PriceTable } from '../core/pricing.js';
import { compactPriority, PRIORITY_MAX, PRIORITY_MIN, priorityProblem, type RunPriority } from '../core/priority.js';
import { checkAgentSettings, InvalidSettingsError, SETTING_BOUNDS } from '../core/settings-check.js';
import { EFFORTS, type AgentSettings, type GuardName } from '../core/types.js';
import { allToolNames, describeUnknown, isAllowedBy, toolCatalog, unknownTools, type ToolCatalog } from '../config/tool-names.js';
import { validateJsonSchema } from '../tools/validate.js';
import { UsageError, type FlagSpec, type Parsed } from '../core/args.js';
import { CONFIG_FLAG } from './config.js';
import { SERVER_TOOL_FLAGS, serverToolsFromFlags } from './server-tools.js';

/** A numeric flag's bounds, from the library's one table (SETTING_BOUNDS): the CLI, the HTTP API and the library
 * refuse the same values with the same words. */
const bounded = <F extends keyof typeof SETTING_BOUNDS>(field: F) => {
  const b: { whole: boolean; min: number; max?: number } = SETTING_BOUNDS[field];
  return b.whole ? ({ type: 'int', min: b.min, ...(b.max !== undefined ? { max: b.max } : {}) } as const) : ({ type: 'number', min: b.min } as const);
};

export const START_FLAGS = {
  json: { type: 'boolean', help: 'print exactly one JSON document' },
  model: { type: 'string', value: 'ID', help: 'model id (default: $AGENT_MODEL or claude-sonnet-5-5)' },
  'max-steps': { ...bounded('maxSteps'), help: 'step cap: model calls before the run stops (default 20); a summary call may follow' },
  'max-output-tokens': { ...bounded('maxOutputTokens'), help: 'max_tokens of each model call (default 4096)' },
  system: { type: 'string', help: 'system prompt' },
  tools: { type: 'list', help: "tools the model may use (default: all: built-ins, the config's tools, each MCP server's as <server>__*)" },
  id: { type: 'string', value: 'ID', help: 'workflow id; when a run with it exists, attach to it instead of starting another' },
  'task-file': { type: 'string', value: 'FILE', help: 'read the task from FILE (- for standard input) instead of the argument' },
  'budget-tokens': { ...bounded('budgetTokens'), help: 'stop when input+output+cache tokens, over the whole job, reach N' },
  'budget-usd': { ...bounded('budgetUsd'), help: 'stop when the cost reaches X dollars (price table; see --prices)' },
  prices: { type: 'string', value: 'FILE', help: 'JSON prices (USD per million tokens) overriding the built-in table' },
  deadline: { type: 'string', value: 'D', help: 'wall-clock limit of the job: 90s, 10m, 2h, 1h30m' },
  'summary-on': { type: 'list', help: 'guards followed by a last tool-less summary call (default max_steps,repetition,error_streak; or none)' },
  'output-schema': { type: 'string', value: 'FILE', help: 'JSON Schema of the final answer: adds a submit_answer tool; the result carries output' },
  effort: { type: 'string', choices: EFFORTS, value: 'LEVEL', help: `output_config.effort: ${EFFORTS.join(', ')}` },
  thinking: { ...bounded('thinkingBudget'), help: 'extended thinking budget in tokens (>= 1024, < --max-output-tokens)' },
  'no-prompt-cache': { type: 'boolean', help: 'do not mark the conversation prefix for prompt caching' },
  approve: { type: 'list', help: 'tools whose every call waits for `approve` or `deny`' },
  chat: { type: 'boolean', help: 'keep the run open after its answer for follow-ups (`send`), until `close`' },
  'idle-timeout': { type: 'string', value: 'D', help: 'with --chat: end the run after D without a message (default 1h)' },
  'heartbeat-timeout': { type: 'string', value: 'D', help: 'how soon a worker that died mid-call is noticed and the call retried (default 10s)' },
  'tool-timeout': { type: 'string', value: 'D', help: "timeout of a tool call whose tool sets none (default 5m; a tool's own timeout wins)" },
  'local-model-calls': {
    type: 'boolean',
    help: 'run each model call inside the workflow task (a local activity): faster turns, no live progress of a call',
  },
  batch: { type: 'boolean', help: 'model calls through the Message Batches API: half the price, answers in minutes to 24h (docs/background-agents.md)' },
  'batch-fallback': {
    type: 'string',
    choices: ['retry', 'direct'],
    value: 'HOW',
    help: 'with --batch: a request that errored or expired goes into a later batch (retry, default) or is made directly once (direct)',
  },
  'continue-as-new-after': { ...bounded('continueAsNewAfterSteps'), help: 'continue-as-new after N model calls in one run (default: when the server suggests)' },
  'max-tool-output': { ...bounded('maxToolOutputChars'), help: 'truncate tool output above N characters, with a note to the model (default 100000)' },
  agents: { type: 'list', help: "sub-agents the model may delegate to, as agent__<name> tools (default: all the config's agents; none for none)" },
  'max-agent-depth': { ...bounded('maxAgentDepth'), help: 'how deep sub-agents may nest (default 2): a run at this depth delegates no further' },
  'context-clear-at': { ...bounded('contextClearAtTokens'), help: 'clear old tool results from requests once a prompt reaches N tokens (default: with --no-compaction, 150000)' },
  'compact-at': {
    ...bounded('compactAt'),
    help: "compact the conversation (server-side) once a prompt reaches N tokens (default 150000; 5000 to the model's window)",
  },
  'no-compaction': { type: 'boolean', help: 'no compaction: the run stops when the conversation outgrows the context window' },
  priority: { type: 'int', min: PRIORITY_MIN, max: PRIORITY_MAX, help: 'Temporal task priority of the run and its calls: 1 (first) to 5 (last), default 3' },
  'fairness-key': { type: 'string', value: 'KEY', help: "a tenant: runs of different keys share the queues fairly, whatever one key's backlog" },
  'fairness-weight': { type: 'number', min: 0.001, help: "with --fairness-key: the key's share relative to others (default 1, at most 1000)" },
  webhook: {
    type: 'list',
    repeatable: true,
    value: 'URL',
    help: 'POST the run\'s events (run.completed, approval.needed, ...) to URL, signed with $DURABLE_AGENT_WEBHOOK_SECRET; repeatable',
  },
  ...SERVER_TOOL_FLAGS,
  ...CONFIG_FLAG,
} satisfies Record<string, FlagSpec>;

export const RUN_FLAGS = {
  ...START_FLAGS,
  scripted: { type: 'boolean', help: 'use the offline scripted model (AGENT_SCRIPT, else the France demo) instead of Claude' },
} satisfies Record<string, FlagSpec>;

/** The run's Temporal task priority from --priority, --fairness-key and --fairness-weight (none: undefined). */
export function priorityFromFlags(flags: Parsed<typeof START_FLAGS>['flags']): RunPriority | undefined {
  const priority = compactPriority({ priorityKey: flags.priority, fairnessKey: flags['fairness-key'], fairnessWeight: flags['fairness-weight'] });
  const problem = priority ? priorityProblem(priority) : null;
  if (problem) {
    const flag = /weight/.test(problem) ? '--fairness-weight' : /fairness key/.test(problem) ? '--fairness-key' : '--priority';
    throw new UsageError(`${flag}: ${problem}`);
  }
  return priority;
}

/** `catalog`: the tools the CLI knows of (the built-ins, and the config file's tools and MCP servers). */
export function settingsFromFlags(
  flags: Parsed<typeof START_FLAGS>['flags'],
  catalog: ToolCatalog = toolCatalog({}),
): AgentSettings {
  const known = allToolNames(catalog);
  const serverTools = serverToolsFromFlags(flags);
  const serverNames: readonly string[] = serverTools?.tools ?? [];
  // A server tool replaces a tool of the same name (the built-in web_search stub) when --tools is not given.
  const tools = flags.tools ?? known.filter((t) => !serverNames.includes(t));
  const agents = agentTools(flags.agents, catalog);
  const unknown = unknownTools(tools, catalog);
  if (unknown.length > 0) {
    throw new UsageError(`unknown tool ${describeUnknown(unknown)} in --tools (available: ${known.join(', ')})`);
  }
  const clash = tools.filter((t) => serverNames.includes(t));
  if (clash.length > 0) {
    throw new UsageError(
      `${clash.join(', ')} is in both --tools and --server-tools; tool names must be unique: leave it out of --tools to use Claude's server tool`,
    );
  }
  const model = flags.model ?? (process.env.AGENT_MODEL || DEFAULTS.model);
  const maxOutputTokens = flags['max-output-tokens'] ?? DEFAULTS.maxOutputTokens;
  const prices = flags.prices !== undefined ? readPrices(flags.prices) : undefined;
  if (flags['budget-usd'] !== undefined && !((prices && priceFor(model, prices)) || priceFor(model))) {
    throw new UsageError(
      `--budget-usd needs the price of model "${model}", which is not in the price table; ` +
        'give its prices with --prices FILE (USD per million tokens: {"<model>": {"input", "output", "cacheWrite", "cacheRead"}}), or use --budget-tokens',
    );
  }
  const approve = flags.approve !== undefined ? approveList(flags.approve, tools, catalog) : undefined;
  if (flags['idle-timeout'] !== undefined && !flags.chat) {
    throw new UsageError('--idle-timeout applies to chat runs only: add --chat');
  }
  if (flags['batch-fallback'] !== undefined && !flags.batch) throw new UsageError('--batch-fallback applies to batch runs only: add --batch');
  const compactAt = flags['compact-at'];
  const thinking = flags.thinking;
  const settings = defaultSettings({
    model,
    maxSteps: flags['max-steps'] ?? DEFAULTS.maxSteps,
    maxOutputTokens,
    system: flags.system,
    tools: [...tools, ...agents],
    maxAgentDepth: flags['max-agent-depth'],
    budgetTokens: flags['budget-tokens'],
    budgetUsd: flags['budget-usd'],
    prices: prices && pricesFor(model, prices),
    deadlineMs: flags.deadline !== undefined ? durationFlag('deadline', flags.deadline) : undefined,
    summaryOn: flags['summary-on'] !== undefined ? summaryOn(flags['summary-on']) : undefined,
    outputSchema: flags['output-schema'] !== undefined ? readSchema(flags['output-schema']) : undefined,
    effort: flags.effort as AgentSettings['effort'],
    thinkingBudget: thinking,
    promptCaching: flags['no-prompt-cache'] ? false : undefined,
    approve,
    chat: flags.chat ? true : undefined,
    idleTimeoutMs: flags['idle-timeout'] !== undefined ? durationFlag('idle-timeout', flags['idle-timeout']) : undefined,
    heartbeatTimeoutMs:
      flags['heartbeat-timeout'] !== undefined ? durationFlag('heartbeat-timeout', flags['heartbeat-timeout'], 1000) : undefined,
    toolTimeoutMs: flags['tool-timeout'] !== undefined ? durationFlag('tool-timeout', flags['tool-timeout'], 1000) : undefined,
    localModelCalls: flags['local-model-calls'] ? true : undefined,
    modelCalls: flags.batch ? 'batch' : undefined,
    batchFallback: flags['batch-fallback'] as AgentSettings['batchFallback'],
    continueAsNewAfterSteps: flags['continue-as-new-after'],
    maxToolOutputChars: flags['max-tool-output'],
    contextClearAtTokens: flags['context-clear-at'],
    compactAt,
    compaction: flags['no-compaction'] ? false : undefined,
    serverTools,
    webhooks: flags.webhook,
  });
  // The library's own check (src/core/settings-check.ts), in the words of the flags.
  try {
    return checkAgentSettings(settings, { compileSchema: validateJsonSchema });
  } catch (err) {
    if (!(err instanceof InvalidSettingsError)) throw err;
    const flag = err.field === 'outputSchema' ? `--output-schema ${flags['output-schema']}` : flagOf(err.field);
    throw new UsageError(`${flag} ${inFlagWords(err.problem)}`);
  }
}

/** The flag that sets each AgentSettings field (the others are set by no flag of their own). */
const FLAG_OF: Record<string, string> = {
  maxSteps: '--max-steps',
  maxOutputTokens: '--max-output-tokens',
  system: '--system',
  tools: '--tools',
  budgetTokens: '--budget-tokens',
  budgetUsd: '--budget-usd',
  deadlineMs: '--deadline',
  summaryOn: '--summary-on',
  prices: '--prices',
  outputSchema: '--output-schema',
  thinkingBudget: '--thinking',
  approve: '--approve',
  idleTimeoutMs: '--idle-timeout',
  heartbeatTimeoutMs: '--heartbeat-timeout',
  toolTimeoutMs: '--tool-timeout',
  localModelCalls: '--local-model-calls',
  modelCalls: '--batch',
  batchFallback: '--batch-fallback',
  continueAsNewAfterSteps: '--continue-as-new-after',
  maxToolOutputChars: '--max-tool-output',
  contextClearAtTokens: '--context-clear-at',
  compactAt: '--compact-at',
  maxAgentDepth: '--max-agent-depth',
  webhooks: '--webhook',
  model: '--model',
};

const flagOf = (field: string) => FLAG_OF[field] ?? field;
const inFlagWords = (problem: string) =>
  problem
    .replace('compaction: false', '--no-compaction')
    .replace('"batch" cannot be combined with localModelCalls', 'cannot be combined with --local-model-calls')
    .replace('or [] for none', 'or none')
    .replace(/\b(maxOutputTokens|maxSteps)\b/g, (field) => flagOf(field));

/** `--agents a,b` (default: every agent of the config; `none`: none) as the run's `agent__<name>` tools. */
function agentTools(names: string[] | undefined, catalog: ToolCatalog): string[] {
  const known = catalog.agents ?? [];
  if (names === undefined) return known.map(agentToolName);
  if (names.length === 1 && names[0] === 'none') return [];
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    const near = (n: string) => nearestName(n, known);
    const listed = unknown.map((n) => `"${n}"${near(n) ? ` (did you mean "${near(n)}"?)` : ''}`).join(', ');
    throw new UsageError(`unknown agent ${listed} in --agents (the config defines: ${known.join(', ') || 'none'})`);
  }
  return [...new Set(names)].map(agentToolName);
}

/** A duration flag (`90s`, `10m`, `2h`): a UsageError naming the flag for anything else or below `minMs`. */
export function durationFlag(flag: string, text: string, minMs = 1): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    throw new UsageError(`--${flag}: ${(err as Error).message}`);
  }
  if (ms < minMs) throw new UsageError(`--${flag} must be at least ${minMs} ms (got "${text}")`);
  return ms;
}

/** `--approve a,b`: tools that wait for a human decision before each call. A name the worker does not know, or
 * one the run may not use, would make the flag silently do nothing: both are refused. */
function approveList(names: string[], tools: string[], catalog: ToolCatalog): string[] {
  if (names.length === 0) throw new UsageError('--approve needs at least one tool name (e.g. --approve calculator)');
  // The workflow matches approvals by exact name: a pattern would silently approve nothing.
  const patterns = names.filter((t) => t.endsWith('__*'));
  if (patterns.length > 0) {
    throw new UsageError(`--approve takes tool names, not ${patterns.map((t) => `"${t}"`).join(', ')}: name each MCP tool (<server>__<tool>)`);
  }
  const unknown = unknownTools(names, catalog);
  if (unknown.length > 0) {
    throw new UsageError(`unknown tool ${describeUnknown(unknown)} in --approve (available: ${allToolNames(catalog).join(', ')})`);
  }
  const unused = names.filter((t) => !isAllowedBy(t, tools));
  if (unused.length > 0) {
    throw new UsageError(
      `--approve names ${unused.map((t) => `"${t}"`).join(', ')}, which the run may not use (--tools ${tools.join(',')})`,
    );
  }
  return [...new Set(names)];
}

/** `--summary-on a,b` or `none`; which guards may be named is the settings check's. */
function summaryOn(names: string[]): GuardName[] {
  if (names.length === 1 && names[0] === 'none') return [];
  return names as GuardName[];
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

function readSchema(file: string): Record<string, unknown> {
  const schema = readJson(file, '--output-schema');
  // The schema itself is compiled by the settings check; here only the file is named.
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new UsageError(`--output-schema: ${file}: the schema must be a JSON object`);
  }
  return schema as Record<string, unknown>;
}

function readPrices(file: string): PriceTable {
  try {
    return parsePriceOverrides(readJson(file, '--prices'), file);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--prices: ${(err as Error).message}`);
  }
}

/** Only the run's model goes into the workflow input: the table itself can be long. */
function pricesFor(model: string, table: PriceTable): PriceTable | undefined {
  const price = priceFor(model, table);
  return price ? { [model]: price } : undefined;
}
