// Starting a run and waiting for its result: the client API's core (index.ts exports it with the rest).
import {
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure, type SearchAttributePair } from '@temporalio/common';
import { DEFAULTS, encryptedTaskQueue } from '../core/policies.js';
import { checkAgentInput, InvalidSettingsError, priorityProblem } from '../core/settings-check.js';
import { compactPriority, type RunPriority } from '../core/priority.js';
import { validateJsonSchema } from '../tools/validate.js';
import { agentResult } from '../core/result.js';
import { withRoundedCosts } from '../core/pricing.js';
import { oneLine, ZERO_USAGE } from '../core/transcript.js';
import type { AgentInput, AgentResult, AgentSettings, RunStatus } from '../core/types.js';
import type { agentWorkflow } from '../workflows/agent.js';
import { AGENT_RUN_FAILED, AGENT_WORKFLOW } from '../workflows/definitions.js';
import { AGENT_SEARCH_ATTRIBUTES, AgentTaskBatch, startingSearchAttributes } from '../core/search-attributes.js';
import { readRunFromHistory } from './history.js';
import { codecKeyIds, codecsEncrypt } from '../codec/encryption-codec.js';

/** A priority, fairness key or weight out of range (startAgent's `priority`). */
export class InvalidPriorityError extends Error {
  override name = 'InvalidPriorityError';
}

export interface StartAgentOptions {
  task: string;
  settings: AgentSettings;
  /** Makes submission idempotent: when a run with this id exists (running or closed), attach to it. */
  workflowId?: string;
  taskQueue?: string;
  /** Temporal task priority of the run, which its activities and sub-agents inherit (a sub-agent's own `priority`
   * wins): `priorityKey` 1 (first) to 5 (last), default 3; `fairnessKey` (a tenant) and `fairnessWeight` share
   * the queues fairly between keys. The server orders by them only when its matcher does (docs/operations.md,
   * "Priorities and fairness"). */
  priority?: RunPriority;
  /** The set of runs this one belongs to (a task file's name: `start --tasks`), recorded as the AgentTaskBatch
   * search attribute so `list --batch NAME` finds them. Needs that attribute registered (docs/inspecting.md). */
  taskBatch?: string;
}

export interface StartedAgent {
  workflowId: string;
  runId: string;
  /** True when a run with the requested id already existed and we attached to it instead of starting one. */
  attached: boolean;
}

/** Throws InvalidSettingsError (naming the field) for settings that would fail, stall or misbehave the run, before
 * anything reaches the server. */
export async function startAgent(client: Client, options: StartAgentOptions): Promise<StartedAgent> {
  checkAgentInput(options.task, options.settings, { compileSchema: validateJsonSchema });
  const priorityIssue = options.priority ? priorityProblem(options.priority) : null;
  if (priorityIssue) throw new InvalidPriorityError(priorityIssue);
  const priority = compactPriority(options.priority);
  // Workflow ids are stored and shown in plain text: with encryption on, the default id says nothing of the task.
  const encrypted = codecsEncrypt(client.options.loadedDataConverter.payloadCodecs);
  const workflowId = options.workflowId ?? newWorkflowId(encrypted ? '' : options.task);
  if (options.workflowId) {
    const existing = await describeIfExists(client, workflowId);
    if (existing) return { workflowId, runId: existing.runId, attached: true };
  }
  const settings = { ...options.settings };
  settings.searchAttributes ??= await searchAttributesRegistered(client);
  const input: AgentInput = { task: options.task, settings };
  try {
    const handle = await client.workflow.start<typeof agentWorkflow>(AGENT_WORKFLOW, {
      workflowId,
      ...runStart(client, input, options.taskQueue, options.task),
      // A closed run keeps its id: asking for it again attaches to it rather than running the task twice.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // Set at the start, the visibility record has them at once, and the run writes none until one changes.
      ...(settings.searchAttributes || options.taskBatch ? { typedSearchAttributes: runSearchAttributes(settings, options.taskBatch) } : {}),
      ...(priority ? { priority } : {}),
    });
    return { workflowId, runId: handle.firstExecutionRunId, attached: false };
  } catch (err) {
    const unregistered = settings.searchAttributes || options.taskBatch ? unregisteredSearchAttribute(err) : null;
    if (unregistered && options.taskBatch && /AgentTaskBatch/.test(unregistered)) {
      throw new InvalidSettingsError(
        'taskBatch',
        `needs the AgentTaskBatch search attribute, but ${unregistered}: register it (docs/inspecting.md: temporal operator ` +
          'search-attribute create --name AgentTaskBatch --type Keyword)',
      );
    }
    if (unregistered) {
      throw new InvalidSettingsError(
        'searchAttributes',
        `is true, but ${unregistered}: register the Agent* search attributes (docs/inspecting.md: temporal operator ` +
          `search-attribute create) or start with searchAttributes: false`,
      );
    }
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    const existing = await describeIfExists(client, workflowId);
    if (!existing) throw err;
    return { workflowId, runId: existing.runId, attached: true };
  }
}

/** Waits for a run (across continue-as-new) and returns its AgentResult, whatever way it ended. A run the
 * server closed (an operator's terminate, a workflow timeout) reads as `terminated` / `timed_out`, with the
 * steps, usage, cost and last text its history holds and the operator's reason. Needs no worker once the run
 * has ended. Throws `WorkflowNotFoundError` for an unknown id. */
export async function getAgentResult(client: Client, workflowId: string): Promise<AgentResult> {
  const handle = client.workflow.getHandle<typeof agentWorkflow>(workflowId);
  await handle.describe(); // fails fast with WorkflowNotFoundError
  try {
    // Money to the micro-dollar, for runs whose result was recorded before agentResult rounded it.
    return withRoundedCosts(await handle.result());
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const cause = err.cause;
    if (cause instanceof ApplicationFailure && cause.type === AGENT_RUN_FAILED && isAgentResult(cause.details?.[0])) {
      return withRoundedCosts(cause.details[0]);
    }
    // The run that failed is the latest of the chain (result() followed any continue-as-new).
    const { runId } = await handle.describe();
    const run = await readRunFromHistory(client, workflowId, runId).catch(() => undefined);
    const status: RunStatus =
      run?.endedByServer?.status ??
      (cause instanceof TerminatedFailure
        ? 'terminated'
        : cause instanceof TimeoutFailure
          ? 'timed_out'
          : cause instanceof CancelledFailure
            ? 'cancelled'
            : 'failed');
    const why =
      status === 'terminated'
        ? `terminated by an operator: ${run?.endedByServer?.reason ?? (cause?.message || '(no reason given)')}`
        : status === 'timed_out'
          ? (run?.endedByServer?.reason ?? 'the run timed out')
          : (cause?.message ?? err.message);
    const view = run?.view;
    return agentResult({
      workflowId,
      runId,
      status,
      stopReason: view?.stopReason ?? null,
      guard: view?.guard ?? null,
      text: view?.lastText ?? '',
      steps: view?.steps ?? 0,
      toolCalls: view?.toolCalls ?? 0,
      usage: view?.usage ?? { ...ZERO_USAGE },
      costUsd: view?.costUsd ?? null,
      error: status === 'cancelled' ? null : why,
      runsUsed: view?.runsUsed ?? 1,
    });
  }
}

/** The attributes a run starts with: the agent's own (when the namespace has them) and its task batch. */
export function runSearchAttributes(settings: AgentSettings, taskBatch?: string): SearchAttributePair[] {
  return [...(settings.searchAttributes ? startingSearchAttributes(settings.model) : []), ...(taskBatch ? [{ key: AgentTaskBatch, value: taskBatch }] : [])];
}

/** The server's reason, when it refused a start for a search attribute the namespace does not define. */
function unregisteredSearchAttribute(err: unknown): string | null {
  const details = invalidArgument(err) ?? '';
  return /no mapping defined for search attribute/i.test(details) ? details.replace(/^Namespace/, 'namespace') : null;
}

/** The server's reason for an INVALID_ARGUMENT (gRPC status 3), found on `err` or what caused it. */
export function invalidArgument(err: unknown): string | null {
  for (let e = err, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, details } = e as { code?: number; details?: unknown };
    if (code === 3 && typeof details === 'string') return details;
  }
  return null;
}

const registeredByClient = new WeakMap<Client, Promise<Record<string, unknown>>>();

/** Whether the namespace has these search attributes, by default the Agent* ones (the embedded server registers
 * them; other servers need the `temporal operator search-attribute create` commands in docs/inspecting.md).
 * Upserting an unregistered attribute would fail every workflow task, so runs only use them when they are there. */
export async function searchAttributesRegistered(client: Client, keys: readonly { name: string }[] = AGENT_SEARCH_ATTRIBUTES): Promise<boolean> {
  let known = registeredByClient.get(client);
  if (!known) {
    known = client.connection.operatorService
      .listSearchAttributes({ namespace: client.options.namespace })
      .then((r) => r.customAttributes ?? {})
      .catch(() => ({}));
    registeredByClient.set(client, known);
  }
  const registered = await known;
  return keys.every((k) => k.name in registered);
}

/** The task queue a run starts on: `taskQueue`, or with encryption on, its queue for the key the client encrypts
 * with (`<taskQueue>@<keyId>`), which only workers holding that key poll. A worker without the key then never
 * takes one of the run's tasks: it cannot fail them, nor use up their attempts (see encryptedTaskQueue). */
export function runTaskQueue(client: Client, taskQueue: string = DEFAULTS.taskQueue): string {
  const [keyId] = codecKeyIds(client.options.loadedDataConverter.payloadCodecs);
  return keyId ? encryptedTaskQueue(taskQueue, keyId) : taskQueue;
}

/** The run's description, or undefined when no run has that id. */
export async function describeIfExists(client: Client, workflowId: string) {
  try {
    return await client.workflow.getHandle(workflowId).describe();
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}

function isAgentResult(value: unknown): value is AgentResult {
  return typeof value === 'object' && value !== null && 'status' in value && 'workflowId' in value;
}

/** `agent-search-for-the-population-8k2x1q`: readable in the UI, unique enough to never collide. */
export function newWorkflowId(task: string): string {
  return `agent-${slugOf(task, 32) || 'run'}-${randomSuffix()}`;
}

/** The words of `text` in lower case, joined by `-`, at most `max` characters (for a workflow id). */
export const slugOf = (text: string, max: number) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');

/** Six random characters that make a workflow id unique. */
export const randomSuffix = () => Math.random().toString(36).slice(2, 8).padEnd(6, '0');

/** What every start of an agent run (a start, a resume, a fork, a schedule's firing) gives Temporal: its input, the
 * task queue it runs on, and what the Temporal UI shows of it (`summary`, and its settings as its details). */
export function runStart(client: Client, input: AgentInput, taskQueue: string | undefined, summary: string) {
  const { settings } = input;
  const details = [
    `**model** ${settings.model}`,
    `**tools** ${settings.tools.join(', ') || '(none)'}`,
    `**max steps** ${settings.maxSteps} · **max output tokens** ${settings.maxOutputTokens}`,
  ];
  return { taskQueue: runTaskQueue(client, taskQueue), args: [input] as [AgentInput], staticSummary: oneLine(summary, 200), staticDetails: details.join('\n\n') };
}
