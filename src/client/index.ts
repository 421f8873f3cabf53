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
import { DEFAULTS } from '../core/policies.js';
import { oneLine, ZERO_USAGE } from '../core/transcript.js';
import type { AgentInput, AgentResult, AgentSettings } from '../core/types.js';
import type { agentWorkflow } from '../workflows/agent.js';

export { connectClient, resolveTemporalTarget, type TemporalTarget } from './connection.js';

export const AGENT_WORKFLOW = 'agentWorkflow';

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

export function defaultSettings(overrides: Partial<AgentSettings> = {}): AgentSettings {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return {
    model: DEFAULTS.model,
    maxSteps: DEFAULTS.maxSteps,
    maxOutputTokens: DEFAULTS.maxOutputTokens,
    tools: [],
    summaryOn: [...DEFAULTS.summaryOn],
    promptCaching: DEFAULTS.promptCaching,
    ...defined,
  };
}

export async function startAgent(client: Client, options: StartAgentOptions): Promise<StartedAgent> {
  const workflowId = options.workflowId ?? newWorkflowId(options.task);
  if (options.workflowId) {
    const existing = await describeIfExists(client, workflowId);
    if (existing) return { workflowId, runId: existing.runId, attached: true };
  }
  const input: AgentInput = { task: options.task, settings: options.settings };
  try {
    const handle = await client.workflow.start<typeof agentWorkflow>(AGENT_WORKFLOW, {
      workflowId,
      taskQueue: options.taskQueue ?? DEFAULTS.taskQueue,
      args: [input],
      // A closed run keeps its id: asking for it again attaches to it rather than running the task twice.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      staticSummary: oneLine(options.task, 200),
      staticDetails: runDetails(options.settings),
    });
    return { workflowId, runId: handle.firstExecutionRunId, attached: false };
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
    const existing = await describeIfExists(client, workflowId);
    if (!existing) throw err;
    return { workflowId, runId: existing.runId, attached: true };
  }
}

/** Waits for a run (across continue-as-new) and returns its AgentResult, whatever way it ended.
 * Throws `WorkflowNotFoundError` for an unknown id. */
export async function getAgentResult(client: Client, workflowId: string): Promise<AgentResult> {
  const handle = client.workflow.getHandle<typeof agentWorkflow>(workflowId);
  const { runId } = await handle.describe(); // fails fast with WorkflowNotFoundError
  try {
    return await handle.result();
  } catch (err) {
    if (!(err instanceof WorkflowFailedError)) throw err;
    const cause = err.cause;
    if (cause instanceof ApplicationFailure && cause.type === 'AgentRunFailed' && isAgentResult(cause.details?.[0])) {
      return cause.details[0];
    }
    const status = cause instanceof CancelledFailure ? 'cancelled' : 'failed';
    const why =
      cause instanceof TerminatedFailure
        ? `the run was terminated${cause.message ? `: ${cause.message}` : ''}`
        : cause instanceof TimeoutFailure
          ? 'the run timed out'
          : (cause?.message ?? err.message);
    return {
      workflowId,
      runId,
      status,
      stopReason: null,
      guard: null,
      text: '',
      partial: true,
      steps: 0,
      toolCalls: 0,
      usage: { ...ZERO_USAGE },
      costUsd: null,
      error: status === 'cancelled' ? null : why,
    };
  }
}

export { WorkflowNotFoundError };

async function describeIfExists(client: Client, workflowId: string) {
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
