// Sub-agents: a run's `agent__<name>` tool calls become child runs of the same workflow. The pure parts: the tool's
// name and definition, the child's workflow id and settings (within what the parent has left), the tool_result a
// child's end becomes, a child's usage rolled up into its parent's, and the delegation depth of a set of agents.
import { DEFAULTS } from './policies.js';
import { addUsage, totalTokens, ZERO_USAGE } from './transcript.js';
import type { AgentResult, AgentSettings, ChildRunRecord, LoopState, SubAgentDefinition, ToolOutcome, Usage } from './durable-state.js';

/** The prefix of a sub-agent's tool name: `agent__researcher`. No MCP server may be named `agent`. */
export const AGENT_TOOL_PREFIX = 'agent__';
/** How deep sub-agents nest unless `--max-agent-depth` (or the config's `maxAgentDepth`) says otherwise. */
export const DEFAULT_MAX_AGENT_DEPTH = 2;
/** How much earlier than its parent's a child's deadline is, at most (a fifth of the time left, below 10 s: the
 * parent needs a model turn after the child's partial answer, and a twentieth was not enough on a loaded worker). */
export const DEADLINE_MARGIN_MS = 2_000;
/** A sub-agent's name: the tool name `agent__<name>` must obey the Messages API's rule (64 characters). */
export const AGENT_NAME = /^[a-zA-Z0-9-][a-zA-Z0-9_-]{0,56}$/;

export const agentToolName = (name: string) => `${AGENT_TOOL_PREFIX}${name}`;
export const isAgentTool = (toolName: string) => toolName.startsWith(AGENT_TOOL_PREFIX) && toolName.length > AGENT_TOOL_PREFIX.length;
export const agentNameOf = (toolName: string) => toolName.slice(AGENT_TOOL_PREFIX.length);
/** The names of the agents a `tools` list delegates to. */
export const agentsIn = (tools: readonly string[]) => tools.filter(isAgentTool).map(agentNameOf);

/** The tool definition the model sees for a sub-agent: input `{ task }`, plus the properties of its own input
 * schema when it declares one. */
export function agentToolDefinition(name: string, def: SubAgentDefinition) {
  const own = def.inputSchema ?? {};
  const properties = (own.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(own.required) ? (own.required as string[]) : [];
  return {
    name: agentToolName(name),
    description: def.description,
    input_schema: {
      ...own,
      type: 'object',
      properties: { task: { type: 'string', description: `The task for the ${name} sub-agent, with everything it needs to know.` }, ...properties },
      required: ['task', ...required.filter((r) => r !== 'task')],
    } as Record<string, unknown>,
  };
}

/** The child's task: the call's `task`, and the rest of its input (a sub-agent's own input schema) as JSON after it;
 * null when the input has no task. */
export function childTask(input: unknown): string | null {
  if (typeof input !== 'object' || input === null) return null;
  const { task, ...rest } = input as Record<string, unknown>;
  if (typeof task !== 'string' || !task.trim()) return null;
  return Object.keys(rest).length > 0 ? `${task}\n\nInput:\n${JSON.stringify(rest, null, 2)}` : task;
}

/** The child's workflow id: the parent's and the tool_use id's, so a replayed or retried parent starts no other. */
export function childWorkflowId(parentWorkflowId: string, toolUseId: string): string {
  return `${parentWorkflowId}/${toolUseId}`;
}

/** The child's settings: its definition over what it inherits from the parent, its budget at most its share of what
 * the parent has left (`spent`: the parent's loop now; `share`: the agent calls of the turn, which run at once, so
 * together they cannot overspend by more than one call each, whatever the timing of their reports) and its deadline
 * no later than the parent's. At the depth limit it is offered no agent to delegate to. */
export function childSettings(
  parent: AgentSettings,
  def: SubAgentDefinition,
  spent: Pick<LoopState, 'usage' | 'costUsd'>,
  parentDeadlineAt: number | null,
  now: number,
  depth: number,
  share = 1,
): AgentSettings {
  const maxDepth = parent.maxAgentDepth ?? DEFAULT_MAX_AGENT_DEPTH;
  const tools = (def.tools ?? []).filter((t) => depth < maxDepth || !isAgentTool(t));
  const tokensLeft = parent.budgetTokens !== undefined ? Math.max(1, Math.floor((parent.budgetTokens - totalTokens(spent.usage)) / share)) : undefined;
  const usdLeft = parent.budgetUsd !== undefined ? Math.max(0, (parent.budgetUsd - (spent.costUsd ?? 0)) / share) : undefined;
  // A little before the parent's: the child's deadline counts from its own start, a moment later, and the parent
  // should get the child's partial answer before its own deadline cuts the turn short.
  const msLeft = parentDeadlineAt !== null ? Math.max(1, Math.floor(parentDeadlineAt - now - Math.min(DEADLINE_MARGIN_MS, (parentDeadlineAt - now) / 5))) : undefined;
  const model = def.model ?? parent.model;
  const settings: AgentSettings = {
    model,
    maxSteps: def.maxSteps ?? DEFAULTS.maxSteps,
    maxOutputTokens: def.maxOutputTokens ?? parent.maxOutputTokens,
    tools,
    summaryOn: parent.summaryOn,
    promptCaching: parent.promptCaching,
  };
  const optional: Partial<AgentSettings> = {
    system: def.system,
    budgetTokens: minDefined(def.budgetTokens, tokensLeft),
    budgetUsd: minDefined(def.budgetUsd, usdLeft),
    deadlineMs: minDefined(def.deadlineMs, msLeft),
    outputSchema: def.outputSchema,
    effort: def.effort,
    prices: parent.prices,
    searchAttributes: parent.searchAttributes,
    maxToolOutputChars: parent.maxToolOutputChars,
    contextClearAtTokens: parent.contextClearAtTokens,
    heartbeatTimeoutMs: parent.heartbeatTimeoutMs,
    toolTimeoutMs: parent.toolTimeoutMs,
    localModelCalls: parent.localModelCalls,
    // A background job's sub-agents wait for batches too: the job was started for the batch price.
    modelCalls: parent.modelCalls,
    batchFallback: parent.batchFallback,
    maxAgentDepth: parent.maxAgentDepth,
  };
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) (settings as unknown as Record<string, unknown>)[key] = value;
  return settings;
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

/** The tool_result of a child that ended: its answer (its structured output as JSON when it has one); a partial
 * answer says why it is partial; a failure is an error naming why. */
export function childOutcome(name: string, workflowId: string, result: AgentResult): ToolOutcome {
  const answer = result.output !== undefined ? JSON.stringify(result.output) : result.text;
  if (result.status === 'completed') return { content: answer || '(the sub-agent gave no answer)', isError: false };
  if (result.status === 'failed') return childFailure(name, workflowId, result.error ?? 'it failed');
  const why =
    result.status === 'stopped'
      ? `it was stopped${result.guard ? ` by its ${result.guard} guard` : ''}${result.error ? ` (${result.error})` : ''}`
      : `it was ${result.status}`;
  const note = `[Partial answer: the sub-agent "${name}" (${workflowId}) did not finish: ${why}.]`;
  return { content: answer ? `${answer}\n\n${note}` : note, isError: false };
}

export function childFailure(name: string, workflowId: string, why: string): ToolOutcome {
  return { content: `Sub-agent "${name}" (${workflowId}) failed: ${why}`, isError: true };
}

/** A child's report (or its final result): the parent's totals grow by what it spent since its last report. */
export function rollUp(loop: LoopState, record: ChildRunRecord, usage: Usage, costUsd: number | null): void {
  const delta = subtractUsage(usage, record.usage);
  loop.usage = addUsage(loop.usage, delta);
  const costDelta = (costUsd ?? 0) - (record.costUsd ?? 0);
  if (costDelta !== 0) loop.costUsd = (loop.costUsd ?? 0) + costDelta;
  record.usage = usage;
  record.costUsd = costUsd;
}

function subtractUsage(a: Usage, b: Usage): Usage {
  const d: Usage = {
    input_tokens: Math.max(0, a.input_tokens - b.input_tokens),
    output_tokens: Math.max(0, a.output_tokens - b.output_tokens),
    cache_creation_input_tokens: Math.max(0, a.cache_creation_input_tokens - b.cache_creation_input_tokens),
    cache_read_input_tokens: Math.max(0, a.cache_read_input_tokens - b.cache_read_input_tokens),
  };
  if (a.server_tool_use) {
    d.server_tool_use = {
      web_search_requests: Math.max(0, a.server_tool_use.web_search_requests - (b.server_tool_use?.web_search_requests ?? 0)),
      web_fetch_requests: Math.max(0, a.server_tool_use.web_fetch_requests - (b.server_tool_use?.web_fetch_requests ?? 0)),
    };
  }
  return d;
}

export const newChildRecord = (workflowId: string, agent: string, toolUseId: string): ChildRunRecord => ({
  workflowId,
  agent,
  toolUseId,
  status: 'running',
  steps: 0,
  usage: { ...ZERO_USAGE },
  costUsd: null,
});

/** How many levels of runs an agent brings (itself and the agents it delegates to, transitively), or the cycle
 * that makes it unbounded. Names not in `agents` count as no level (the caller reports them). */
export function delegationDepth(
  agents: Readonly<Record<string, { tools?: readonly string[] }>>,
  name: string,
  path: string[] = [],
): { levels: number } | { cycle: string[] } {
  if (path.includes(name)) return { cycle: [...path.slice(path.indexOf(name)), name] };
  const def = agents[name];
  if (!def) return { levels: 0 };
  let deepest = 0;
  for (const next of agentsIn(def.tools ?? [])) {
    const below = delegationDepth(agents, next, [...path, name]);
    if ('cycle' in below) return below;
    deepest = Math.max(deepest, below.levels);
  }
  return { levels: 1 + deepest };
}
