// How the values a caller gave for a run (the flags of `run`/`start`, the body of `POST /v1/runs`) become its
// AgentSettings and priority: the table's defaults filled in, its tool names checked against what this process (or
// the task queue's workers) offers, then the library's one check. Shared by the CLI and `serve`; every refusal is a
// SettingsInputError in the caller's names (`--approve`, `approve`), which its `name` says.
import { DEFAULTS } from '../core/policies.js';
import { priceFor, type PriceTable } from '../core/pricing.js';
import { compactPriority, type RunPriority } from '../core/priority.js';
import { agentNameOf, agentToolName, isAgentTool } from '../core/sub-agents.js';
import { nearestName } from '../core/suggest.js';
import { defaultSettings } from '../core/settings.js';
import type { SettingNamer } from '../core/run-settings.js';
import { fieldName, givenProblem, settingsProblem, SettingsInputError, type SettingsCheckOptions } from '../core/settings-check.js';
import type { AgentSettings } from '../core/types.js';
import { toolAllowed } from '../core/tool-names.js';
import { allToolNames, describeUnknown, unknownTools, type ToolCatalog } from './tool-names.js';

/** Settings and start options by name, as the table names them (absent or undefined: the default). */
export type RunValues = Partial<AgentSettings> & { agents?: string[]; priority?: number; fairnessKey?: string; fairnessWeight?: number };

export interface RunInput {
  settings: AgentSettings;
  priority?: RunPriority;
}

/** `values` without those a tool catalog checks (`tools`, `approve`, `agents`): what can be checked before the
 * workers have said which tools they offer. */
export const withoutToolNames = (values: Record<string, unknown>) => ({ ...values, tools: undefined, approve: undefined, agents: undefined });

const fail = (field: string, message: string): never => {
  throw new SettingsInputError(message, field);
};

/** `values` as a run's settings and priority; a SettingsInputError naming the first problem. `catalog`: the tools
 * the run may be given (a run without `tools` gets all of them). */
export function runInput(values: Record<string, unknown>, catalog: ToolCatalog, options: SettingsCheckOptions = {}): RunInput {
  const name = options.name ?? fieldName;
  const given = givenProblem(values, options);
  if (given) throw new SettingsInputError(`${name(given.path)} ${given.problem}`, given.field);
  const { agents, priority, fairnessKey, fairnessWeight, ...v } = values as RunValues;
  const known = allToolNames(catalog);
  const serverNames: readonly string[] = v.serverTools?.tools ?? [];
  // A server tool replaces a tool of the same name (the built-in web_search stub) when `tools` is not given.
  const tools = v.tools ?? known.filter((t) => !serverNames.includes(t));
  // A run's sub-agents are in `agents`; named as tools, they would be "unknown tools" the list of tools lacks.
  const delegations = tools.filter((t) => isAgentTool(t) && (catalog.agents ?? []).includes(agentNameOf(t)));
  if (delegations.length > 0) {
    fail('tools', `${name('tools')} names ${delegations.map((t) => `"${t}"`).join(', ')}, a sub-agent: give it as ${name('agents', delegations.map(agentNameOf))}`);
  }
  const unknown = unknownTools(tools, catalog);
  if (unknown.length > 0) fail('tools', `unknown tool ${describeUnknown(unknown)} in ${name('tools')} (available: ${known.join(', ')})`);
  const clash = tools.filter((t) => serverNames.includes(t));
  if (clash.length > 0) {
    fail(
      'tools',
      `${clash.join(', ')} is in both ${name('tools')} and ${name('serverTools.tools')}; tool names must be unique: leave it out of ${name('tools')} to use Claude's server tool`,
    );
  }
  const model = v.model ?? (process.env.AGENT_MODEL || DEFAULTS.model);
  if (v.budgetUsd !== undefined && !((v.prices && priceFor(model, v.prices as PriceTable)) || priceFor(model))) {
    fail(
      'budgetUsd',
      `${name('budgetUsd')} needs the price of model "${model}", which is not in the price table; give its prices with ${name('prices')} ` +
        `(USD per million tokens: {"<model>": {"input", "output", "cacheWrite", "cacheRead"}}), or use ${name('budgetTokens')}`,
    );
  }
  if (v.idleTimeoutMs !== undefined && !v.chat) fail('idleTimeoutMs', `${name('idleTimeoutMs')} applies to chat runs only: add ${name('chat', true)}`);
  if (v.batchFallback !== undefined && v.modelCalls !== 'batch') {
    fail('batchFallback', `${name('batchFallback')} applies to batch runs only: add ${name('modelCalls', 'batch')}`);
  }
  const price = v.prices && priceFor(model, v.prices as PriceTable);
  const delegates = agentTools(agents, catalog, name);
  const settings = defaultSettings({
    ...v,
    model,
    tools: [...tools, ...delegates],
    // The config's (or the worker's) limit, which its agents were checked against: the default would cut them short.
    maxAgentDepth: v.maxAgentDepth ?? (delegates.length > 0 ? catalog.maxAgentDepth : undefined),
    approve: v.approve && approveList(v.approve, tools, catalog, name),
    // Only the run's model goes into the workflow input (the table itself can be long), unless the run may delegate:
    // its sub-agents inherit the prices, and may run other models (unpriced, a budgetUsd cannot start them).
    prices: delegates.length > 0 && v.prices ? (v.prices as PriceTable) : price ? { [model]: price } : undefined,
    serverTools: v.serverTools && { ...v.serverTools, tools: [...new Set(v.serverTools.tools)] },
  });
  // The start options were checked with the values given, above.
  const problem = settingsProblem(settings, options);
  if (problem) fail(problem.field, `${name(problem.path)} ${problem.problem}`);
  const runPriority = compactPriority({ priorityKey: priority, fairnessKey, fairnessWeight });
  return { settings, ...(runPriority ? { priority: runPriority } : {}) };
}

/** `agents` (default: every agent of the catalog; [] none) as the run's `agent__<name>` tools. */
function agentTools(names: string[] | undefined, catalog: ToolCatalog, name: SettingNamer): string[] {
  const known = catalog.agents ?? [];
  if (names === undefined) return known.map(agentToolName);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    const listed = describeUnknown(unknown.map((n) => ({ name: n, suggestion: nearestName(n, known) })));
    throw new SettingsInputError(`unknown agent ${listed} in ${name('agents')} (the config defines: ${known.join(', ') || 'none'})`, 'agents');
  }
  return [...new Set(names)].map(agentToolName);
}

/** Tools that wait for a human decision before each call. A name the worker does not know, or one the run may not
 * use, would make the setting silently do nothing: both are refused. */
function approveList(names: string[], tools: string[], catalog: ToolCatalog, name: SettingNamer): string[] {
  if (names.length === 0) fail('approve', `${name('approve')} needs at least one tool name (e.g. ${name('approve', ['calculator'])})`);
  // The workflow matches approvals by exact name: a pattern would silently approve nothing.
  const patterns = names.filter((t) => t.endsWith('__*'));
  if (patterns.length > 0) fail('approve', `${name('approve')} takes tool names, not ${patterns.map((t) => `"${t}"`).join(', ')}: name each MCP tool (<server>__<tool>)`);
  const unknown = unknownTools(names, catalog);
  if (unknown.length > 0) fail('approve', `unknown tool ${describeUnknown(unknown)} in ${name('approve')} (available: ${allToolNames(catalog).join(', ')})`);
  const unused = names.filter((t) => !toolAllowed(t, tools));
  if (unused.length > 0) {
    fail('approve', `${name('approve')} names ${unused.map((t) => `"${t}"`).join(', ')}, which the run may not use (${name('tools', tools)})`);
  }
  return [...new Set(names)];
}
