// replayRuns: recorded runs as a regression suite. For each run, its steps are walked with the current code: each
// recorded tool call made again with the current tool on the recorded input (read-only tools only, unless
// `allTools`), its result compared with the recorded one; with `liveModel`, the conversation up to each step sent to
// the model with the current settings, the reply's tool calls compared with the recorded ones. Reads runs only: it
// writes nothing to them and starts no workflow.
import Anthropic from '@anthropic-ai/sdk';
import type { Client } from '@temporalio/client';
import { limitToolOutput } from '../activities/payload-limit.js';
import { transcriptBeforeStep } from '../core/fork.js';
import { DEFAULT_MAX_TOOL_OUTPUT_CHARS } from '../core/policies.js';
import { agentNameOf, agentToolDefinition, isAgentTool } from '../core/sub-agents.js';
import { notAnsweredByTool, recordedStepsOf, sameResult, sameToolCalls, shortDiff, toolCallsOf, type RecordedCall } from '../core/replay-compare.js';
import type { AgentSettings, ContentBlock, RunState, SubAgentDefinition, ToolOutcome } from '../core/types.js';
import { toolContext } from '../tools/context.js';
import { executeTool } from '../tools/execute.js';
import { toolCallPolicy } from '../tools/policy.js';
import { createToolRegistry, type ToolRegistry } from '../tools/registry.js';
import type { AnyAgentTool } from '../tools/types.js';
import { AGENT_WORKFLOW } from '../workflows/definitions.js';
import { readRunFromHistory } from './history.js';
import { invalidArgument } from './start.js';
import { turnsOfRun } from './turns.js';

export interface ReplayRunsOptions {
  /** The runs to replay, by workflow id (the latest run of each). */
  workflowIds?: string[];
  /** Or a visibility query (`WorkflowType = 'agentWorkflow' AND ExecutionStatus = 'Completed'`): its agent runs. */
  query?: string;
  /** At most this many runs from `query` (default 200). */
  limit?: number;
  /** The current tools (built-ins, a config's, MCP tools), or a registry of them. */
  tools?: AnyAgentTool[] | ToolRegistry;
  /** Call tools that are not declared read-only too (they may change the world again). */
  allTools?: boolean;
  /** Ask the model again at every recorded step, with the recorded settings and these in their place. */
  liveModel?: { apiKey?: string; baseURL?: string; settings?: Partial<Pick<AgentSettings, 'model' | 'system' | 'tools' | 'maxOutputTokens'>> };
}

export interface ToolCheck {
  toolUseId: string;
  name: string;
  status: 'agrees' | 'differs' | 'skipped';
  /** Why it was skipped, or what differs (a short recorded-vs-new diff). */
  detail?: string;
  recorded?: { content: unknown; isError: boolean };
  current?: { content: unknown; isError: boolean };
}

export interface ModelCheck {
  agrees: boolean;
  recorded: Array<{ name: string; input: unknown }>;
  current: Array<{ name: string; input: unknown }>;
}

export interface StepCheck {
  step: number;
  agrees: boolean;
  tools: ToolCheck[];
  model?: ModelCheck;
}

export interface Divergence {
  step: number;
  /** `tool <name>` or `model`. */
  what: string;
  diff: string;
}

export interface RunReplay {
  workflowId: string;
  runId: string;
  steps: StepCheck[];
  firstDivergence: Divergence | null;
  /** Tool calls not made again, `<name>: <why>`, once per tool and reason. */
  skippedTools: string[];
  /** The run could not be replayed: it could not be read, or the model refused one of its steps' requests. */
  error?: string;
}

export interface ReplayReport {
  runs: RunReplay[];
  /** True when a step of some run diverged (or a run could not be replayed). */
  diverged: boolean;
}

/** A bad replay request (no runs named, a query that matches none): the caller's to fix. */
export class ReplayInputError extends Error {
  override name = 'ReplayInputError';
}

export async function replayRuns(client: Client, options: ReplayRunsOptions): Promise<ReplayReport> {
  const ids = await runIds(client, options);
  const registry = Array.isArray(options.tools) || options.tools === undefined ? createToolRegistry(options.tools) : options.tools;
  const model = options.liveModel ? new Anthropic({ apiKey: options.liveModel.apiKey ?? process.env.ANTHROPIC_API_KEY, baseURL: options.liveModel.baseURL, maxRetries: 2 }) : null;
  const runs: RunReplay[] = [];
  for (const id of ids) runs.push(await replayOne(client, id, registry, options, model));
  return { runs, diverged: runs.some((r) => r.firstDivergence !== null || r.error !== undefined) };
}

async function runIds(client: Client, options: ReplayRunsOptions): Promise<string[]> {
  if (options.workflowIds?.length && options.query) throw new ReplayInputError('give workflow ids or a query, not both');
  if (options.workflowIds?.length) return [...new Set(options.workflowIds)];
  if (!options.query) throw new ReplayInputError('name the runs to replay: workflow ids, or a visibility query');
  const limit = options.limit ?? 200;
  const ids: string[] = [];
  try {
    for await (const w of client.workflow.list({ query: options.query })) {
      if (w.type !== AGENT_WORKFLOW || ids.includes(w.workflowId)) continue;
      ids.push(w.workflowId);
      if (ids.length >= limit) break;
    }
  } catch (err) {
    // A syntax error, an unknown search attribute: the server's reason, for the caller to fix.
    const invalid = invalidArgument(err);
    if (invalid) throw new ReplayInputError(`the query is not a valid visibility query: ${invalid.replace(/^invalid query: /, '')} (${options.query})`);
    throw err;
  }
  if (ids.length === 0) throw new ReplayInputError(`the query matched no agent run: ${options.query}`);
  return ids;
}

async function replayOne(client: Client, workflowId: string, registry: ToolRegistry, options: ReplayRunsOptions, model: Anthropic | null): Promise<RunReplay> {
  let run: Awaited<ReturnType<typeof readRunFromHistory>>;
  let settings: AgentSettings | undefined;
  try {
    const [read, turns] = await Promise.all([readRunFromHistory(client, workflowId), turnsOfRun(client, workflowId)]);
    run = read;
    settings = turns.input?.settings;
  } catch (err) {
    const error = `the run could not be read: ${(err as Error).message.split('\n')[0]}`;
    return { workflowId, runId: '', steps: [], firstDivergence: null, skippedTools: [], error };
  }
  const maxChars = settings?.maxToolOutputChars ?? DEFAULT_MAX_TOOL_OUTPUT_CHARS;
  const skipped = new Set<string>();
  const steps: StepCheck[] = [];
  let firstDivergence: Divergence | null = null;
  const diverge = (d: Divergence) => (firstDivergence ??= d);
  for (const recorded of recordedStepsOf(run.messages)) {
    const check: StepCheck = { step: recorded.step, agrees: true, tools: [] };
    // Past the model's first disagreement, the recorded conversation is no longer one this model would have had:
    // later steps are not asked (what is reported is where it first diverged).
    const modelDiverged = steps.some((s) => s.model && !s.model.agrees);
    if (model && settings && !modelDiverged) {
      try {
        check.model = await askModel(model, registry, run.messages, recorded.step, settings, options.liveModel?.settings ?? {}, run.state.agents ?? {});
      } catch (err) {
        const refused = refusedForThisRun(err);
        if (!refused) throw err;
        return { workflowId, runId: run.runId, steps, firstDivergence, skippedTools: [...skipped], error: `the model refused step ${recorded.step}'s request ${refused}` };
      }
      if (!check.model.agrees) {
        check.agrees = false;
        diverge({ step: recorded.step, what: 'model', diff: shortDiff(check.model.recorded, check.model.current) });
      }
    }
    for (const call of recorded.calls) {
      const limits = { maxChars, toolTimeoutMs: settings?.toolTimeoutMs, allowedTools: settings?.tools, children: run.state.children };
      const tool = await checkTool(registry, call, workflowId, limits, options.allTools ?? false);
      check.tools.push(tool);
      if (tool.status === 'skipped') skipped.add(`${call.name}: ${tool.detail}`);
      if (tool.status === 'differs') {
        check.agrees = false;
        diverge({ step: recorded.step, what: `tool ${call.name}`, diff: tool.detail ?? '' });
      }
    }
    steps.push(check);
  }
  return { workflowId, runId: run.runId, steps, firstDivergence, skippedTools: [...skipped] };
}

/** One recorded call made again with the current tool, through the same code a run's call goes through (input
 * validation, the tool's timeout, the output limit), and its result compared with the recorded one. */
async function checkTool(
  registry: ToolRegistry,
  call: RecordedCall,
  workflowId: string,
  limits: { maxChars: number; toolTimeoutMs: number | undefined; allowedTools: string[] | undefined; children: RunState['children'] },
  allTools: boolean,
): Promise<ToolCheck> {
  const { maxChars } = limits;
  const base = { toolUseId: call.toolUseId, name: call.name };
  const skip = (detail: string): ToolCheck => ({ ...base, status: 'skipped', detail });
  if (!call.result) return skip('no recorded result (the call was still running)');
  const notRun = notAnsweredByTool({ content: call.result.content, isError: call.result.isError });
  if (notRun) return skip(notRun);
  if (isAgentTool(call.name)) {
    const child = Object.entries(limits.children ?? {}).find(([, c]) => c.toolUseId === call.toolUseId)?.[0];
    return skip(`a sub-agent (its own run: replay it by its id${child ? `, ${child}` : ''})`);
  }
  const tool = registry.get(call.name);
  if (!tool) return skip('not a tool of the current code (config, MCP server)');
  if (!tool.readOnly && !allTools) return skip('not declared read-only (readOnly: true; --all-tools calls it anyway)');
  // The tool's own timeout, else the run's (--tool-timeout), else the default: as the run's call was scheduled.
  const timeoutMs = toolCallPolicy(tool.name, tool)?.timeoutMs ?? limits.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  let outcome: ToolOutcome;
  try {
    const context = toolContext({ workflowId: `replay/${workflowId}`, toolUseId: call.toolUseId, signal: abort.signal, deadline: Date.now() + timeoutMs });
    // The tools the run allowed: a call it refused (a tool it was not given) is refused again, not run.
    const running = executeTool(registry, { name: call.name, input: call.input, allowedTools: limits.allowedTools ?? [call.name] }, context);
    const timedOut = new Promise<never>((_, reject) => abort.signal.addEventListener('abort', () => reject(abort.signal.reason as Error), { once: true }));
    outcome = await Promise.race([running, timedOut]);
  } catch (err) {
    // What a run would have retried (a crash, a timeout): the replay reports it as the new result.
    outcome = { isError: true, content: `the tool failed: ${(err as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
  const current = { content: limitToolOutput(outcome.content, maxChars), isError: outcome.isError };
  const recorded = { content: call.result.content ?? '', isError: call.result.isError };
  const agrees = tool.compareResults
    ? tool.compareResults(recorded as Parameters<NonNullable<typeof tool.compareResults>>[0], current)
    : sameResult(recorded, current);
  return { ...base, status: agrees ? 'agrees' : 'differs', recorded, current, ...(agrees ? {} : { detail: shortDiff(recorded.content, current.content) }) };
}

const DEFAULT_TOOL_TIMEOUT_MS = 5 * 60_000;

/** Why the model refused a request for this run's conversation (too long for its window, a model it no longer
 * has), or null: that is the run's, and the other runs are still replayed. A key, a rate limit or an outage would fail
 * every run alike: those end the replay. */
function refusedForThisRun(err: unknown): string | null {
  if (!(err instanceof Anthropic.APIError) || ![400, 404, 413, 422].includes(err.status ?? 0)) return null;
  const body = err.error as { error?: { message?: string } } | undefined;
  return `(${err.status}): ${body?.error?.message ?? err.message}`;
}

/** The conversation before `step` sent with the current settings; the reply's tool calls against the recorded ones. */
async function askModel(
  model: Anthropic,
  registry: ToolRegistry,
  messages: Parameters<typeof transcriptBeforeStep>[0],
  step: number,
  recordedSettings: AgentSettings,
  given: NonNullable<ReplayRunsOptions['liveModel']>['settings'] & object,
  agents: Record<string, SubAgentDefinition>,
): Promise<ModelCheck> {
  const settings = { ...recordedSettings, ...given };
  const before = transcriptBeforeStep(messages, step);
  const recordedReply = messages[before.length];
  const recorded = toolCallsOf(Array.isArray(recordedReply?.content) ? (recordedReply.content as ContentBlock[]) : []);
  // The tools the current code has, among those the run may use, and its sub-agents as the run recorded them at its
  // start (unknown names are left out).
  const subAgents = settings.tools.filter((name) => isAgentTool(name) && agents[agentNameOf(name)]);
  const tools: Anthropic.Tool[] = [
    ...registry.definitions(settings.tools.filter((name) => registry.get(name))),
    ...subAgents.map((name) => agentToolDefinition(agentNameOf(name), agents[agentNameOf(name)]) as Anthropic.Tool),
  ];
  const reply = await model.messages.create({
    model: settings.model,
    max_tokens: settings.maxOutputTokens,
    ...(settings.system ? { system: settings.system } : {}),
    ...(tools.length ? { tools } : {}),
    messages: before,
  });
  const current = toolCallsOf(reply.content);
  return { agrees: sameToolCalls(recorded, current), recorded, current };
}
