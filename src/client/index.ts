// The typed client API: start a run, attach to one, get its result. The CLI is built on these.
import {
  CancelledFailure,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowExecutionAlreadyStartedError,
  WorkflowFailedError,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { DEFAULTS, encryptedTaskQueue } from '../core/policies.js';
import { checkAgentInput } from '../core/settings-check.js';
import { validateJsonSchema } from '../tools/validate.js';
import { notRunResults } from '../core/run-state.js';
import { oneLine, ZERO_USAGE } from '../core/transcript.js';
import type { AgentInput, AgentResult, AgentSettings, MessageParam, RunStatus } from '../core/types.js';
import type { agentWorkflow } from '../workflows/agent.js';
import { AGENT_RUN_FAILED, AGENT_WORKFLOW } from '../workflows/definitions.js';
import { AGENT_SEARCH_ATTRIBUTES } from '../core/search-attributes.js';
import type { RunState } from '../core/durable-state.js';
import { totalTokens } from '../core/transcript.js';
import { readRunFromHistory } from './history.js';
import { codecKeyIds, codecsEncrypt } from '../codec/encryption-codec.js';

export { connectClient, resolveTemporalTarget, type TemporalTarget } from './connection.js';
export { getStatus, getTranscript, listRuns, type RunSummary, type StatusReport } from './inspect.js';
export { modelCallsInFlight, type ModelCallInFlight } from './model-progress.js';
export { toolCallsInFlight, type ToolCallInFlight } from './tool-progress.js';
export { completeToolCall, ToolCompletionError, type CompletedToolCall } from './complete-tool.js';
export { approveToolCall, cancelRun, closeChatRun, denyToolCall, sendFollowUp } from './steer.js';
export { defaultSettings } from '../core/settings.js';
export { checkAgentSettings, InvalidSettingsError, settingsProblem } from '../core/settings-check.js';

export { AGENT_WORKFLOW } from '../workflows/definitions.js';

export interface StartAgentOptions {
  task: string;
  settings: AgentSettings;
  /** Makes submission idempotent: when a run with this id exists (running or closed), attach to it. */
  workflowId?: string;
  taskQueue?: string;
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
      taskQueue: runTaskQueue(client, options.taskQueue),
      args: [input],
      // A closed run keeps its id: asking for it again attaches to it rather than running the task twice.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      staticSummary: oneLine(options.task, 200),
      staticDetails: runDetails(settings),
    });
    return { workflowId, runId: handle.firstExecutionRunId, attached: false };
  } catch (err) {
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
    return await handle.result();
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const cause = err.cause;
    if (cause instanceof ApplicationFailure && cause.type === AGENT_RUN_FAILED && isAgentResult(cause.details?.[0])) {
      return cause.details[0];
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
    return {
      workflowId,
      runId,
      status,
      stopReason: view?.stopReason ?? null,
      guard: view?.guard ?? null,
      text: view?.lastText ?? '',
      partial: true,
      steps: view?.steps ?? 0,
      toolCalls: view?.toolCalls ?? 0,
      usage: view?.usage ?? { ...ZERO_USAGE },
      costUsd: view?.costUsd ?? null,
      error: status === 'cancelled' ? null : why,
      ...(view && view.runsUsed > 1 ? { runsUsed: view.runsUsed } : {}),
    };
  }
}

export { WorkflowNotFoundError };

const registeredByClient = new WeakMap<Client, Promise<boolean>>();

/** Whether the namespace has the Agent* search attributes (the embedded server registers them; other servers
 * need the `temporal operator search-attribute create` commands in docs/inspecting.md). Upserting an unregistered
 * attribute would fail every workflow task, so runs only use them when they are there. */
export function searchAttributesRegistered(client: Client): Promise<boolean> {
  let known = registeredByClient.get(client);
  if (!known) {
    known = client.connection.operatorService
      .listSearchAttributes({ namespace: client.options.namespace })
      .then((r) => AGENT_SEARCH_ATTRIBUTES.every((k) => k.name in (r.customAttributes ?? {})))
      .catch(() => false);
    registeredByClient.set(client, known);
  }
  return known;
}

export interface ResumeOptions {
  /** More model calls allowed, counted from where the run stopped. */
  moreSteps?: number;
  /** More tokens allowed, counted from what the run has used. */
  moreBudgetTokens?: number;
  /** A new deadline, from now. */
  deadlineMs?: number;
  taskQueue?: string;
}

/** Goes on with a failed, stopped, cancelled, terminated or timed-out run (a 401 fixed, a budget raised) in a
 * new run of the same workflow id, starting from its transcript and guard state (read from the old run's
 * history: no worker needed to start it). Its result names the run it continues. */
export async function resumeAgent(client: Client, workflowId: string, options: ResumeOptions = {}): Promise<StartedAgent> {
  const handle = client.workflow.getHandle<typeof agentWorkflow>(workflowId);
  const description = await handle.describe();
  if (description.status.name === 'RUNNING') {
    throw new RunNotResumableError(`run ${workflowId} is still running: only a failed, stopped or cancelled run can be resumed`);
  }
  const previous = await getAgentResult(client, workflowId);
  if (previous.status === 'completed') {
    throw new RunNotResumableError(`run ${workflowId} completed: only a failed, stopped or cancelled run can be resumed`);
  }
  const input = (await fetchFirstInput(client, workflowId, description.runId)) as AgentInput;
  // Read from the closed run's history: no worker needs to be up to resume it.
  const { state, messages } = await readRunFromHistory(client, workflowId, description.runId);
  const settings: AgentSettings = { ...input.settings };
  if (options.moreSteps !== undefined) settings.maxSteps = state.loop.steps + options.moreSteps;
  if (options.moreBudgetTokens !== undefined) settings.budgetTokens = totalTokens(state.loop.usage) + options.moreBudgetTokens;
  // A deadline counts from now; without a new one, the resumed run has none (the old one has passed, or
  // was what stopped it).
  settings.deadlineMs = options.deadlineMs;
  checkAgentInput(input.task, settings, { compileSchema: validateJsonSchema });
  const carried: RunState = {
    ...state,
    messages: withResumeNote(messages, previous),
    // A fresh start for the guards that judge the recent past; spend and step counts carry on.
    loop: { ...state.loop, errorStreak: 0, toolCallCounts: {}, toolCallHashes: {} },
    deadlineAt: options.deadlineMs !== undefined ? Date.now() + options.deadlineMs : null,
    pendingMessages: [],
  };
  // A run that continued as new carries its task as the transcript's first message only (not in `task`).
  const task = input.task || firstMessageText(messages);
  const next = await client.workflow.start<typeof agentWorkflow>(AGENT_WORKFLOW, {
    workflowId,
    taskQueue: runTaskQueue(client, options.taskQueue),
    args: [{ task, settings, carried, resumedFrom: { workflowId, runId: description.runId } }],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    staticSummary: oneLine(`resumed: ${task}`, 200),
    staticDetails: runDetails(settings),
  });
  return { workflowId, runId: next.firstExecutionRunId, attached: false };
}

/** The task queue a run starts on: `taskQueue`, or with encryption on, its queue for the key the client encrypts
 * with (`<taskQueue>@<keyId>`), which only workers holding that key poll. A worker without the key then never
 * takes one of the run's tasks: it cannot fail them, nor use up their attempts (see encryptedTaskQueue). */
export function runTaskQueue(client: Client, taskQueue: string = DEFAULTS.taskQueue): string {
  const [keyId] = codecKeyIds(client.options.loadedDataConverter.payloadCodecs);
  return keyId ? encryptedTaskQueue(taskQueue, keyId) : taskQueue;
}

export class RunNotResumableError extends Error {
  override name = 'RunNotResumableError';
}

/** A transcript that ends with the model's turn (a summary, a refusal, a cut-off reply) gets a user message
 * saying the run goes on: the next request must not end with an assistant message (the API would treat it as
 * a prefill to continue). */
function withResumeNote(messages: MessageParam[], previous: AgentResult): MessageParam[] {
  if (messages.at(-1)?.role !== 'assistant') return messages;
  const why = previous.guard ? `the ${previous.guard} guard` : (previous.error ?? previous.status);
  const note = `The run was stopped (${why}) and has now been resumed with new limits. Tools are available again: continue the task.`;
  // A run the server closed mid-turn (terminated, timed out) left its tool calls unanswered: the API needs
  // their results first.
  const open = notRunResults(messages, `the run was ${previous.status}`);
  if (open && Array.isArray(open.content)) return [...messages, { role: 'user', content: [...open.content, { type: 'text', text: note }] }];
  return [...messages, { role: 'user', content: note }];
}

/** The input of the run that started this chain (settings, task), from the first event of its history. */
async function fetchFirstInput(client: Client, workflowId: string, runId: string): Promise<unknown> {
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const payloads = started?.input?.payloads ?? [];
  // Through the payload codecs too: with encryption on, the input is stored encrypted.
  return decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, payloads);
}

function firstMessageText(messages: MessageParam[]): string {
  const first = messages[0]?.content;
  if (typeof first === 'string') return first;
  return (first ?? []).flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
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
  const slug = task
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/-+$/g, '');
  const suffix = Math.random().toString(36).slice(2, 8).padEnd(6, '0');
  return `agent-${slug || 'run'}-${suffix}`;
}

function runDetails(settings: AgentSettings): string {
  return [
    `**model** ${settings.model}`,
    `**tools** ${settings.tools.join(', ') || '(none)'}`,
    `**max steps** ${settings.maxSteps} · **max output tokens** ${settings.maxOutputTokens}`,
  ].join('\n\n');
}
