// resumeAgent: go on with a stopped run in a new run of the same workflow id. This file reads the old run (its
// result, first input and final state, from the server: no worker needed); what the new run starts from is
// decided by the pure resumedRun (src/core/resume.ts).
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { Priority, SearchAttributePair } from '@temporalio/common';
import { resumedRun, type ResumeLimits } from '../core/resume.js';
import { modelPrice } from '../core/guards.js';
import { checkAgentSettings, InvalidSettingsError } from '../core/settings-check.js';
import { compactPriority } from '../core/priority.js';
import { AgentForkedFrom, AgentTaskBatch, startingSearchAttributes } from '../core/search-attributes.js';
import { defaultSettings } from '../core/settings.js';
import type { AgentInput } from '../core/types.js';
import type { agentWorkflow } from '../workflows/agent.js';
import { AGENT_WORKFLOW } from '../workflows/definitions.js';
import { readRunFromHistory } from './history.js';
import { getAgentResult, runStart, type StartedAgent } from './start.js';
import { turnsOfRun } from './turns.js';

export interface ResumeOptions extends ResumeLimits {
  taskQueue?: string;
}

export class RunNotResumableError extends Error {
  override name = 'RunNotResumableError';
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
  // The input the run started with (settings, task), from the first event of its history.
  const input = (await turnsOfRun(client, workflowId, description.runId)).input as AgentInput;
  // A run that failed before its first step may have been refused for its settings (started around the client): never
  // under way, its settings were never accepted, so they are checked in full, as a start's are.
  if (previous.status === 'failed' && previous.steps === 0 && !input.carried) checkAgentSettings(input.settings);
  // Read from the closed run's history: no worker needs to be up to resume it.
  const ended = await readRunFromHistory(client, workflowId, description.runId);
  const { task, settings, carried } = resumedRun(input, ended, previous, options, Date.now());
  // Only what resume changes is checked: the old run's other settings were accepted when it started (by the rules
  // of its day), and no resume option could change them.
  checkAgentSettings({ ...defaultSettings(), maxSteps: settings.maxSteps, budgetTokens: settings.budgetTokens, budgetUsd: settings.budgetUsd, deadlineMs: settings.deadlineMs });
  if (options.moreBudgetUsd !== undefined && !modelPrice(settings)) {
    throw new InvalidSettingsError('budgetUsd', `needs the price of model "${settings.model}", which the run has none of: use a token budget (moreBudgetTokens, --budget-tokens)`);
  }
  // A fork stays one: its result and status still name its source and what its reused steps cost.
  const forkedFrom = input.forkedFrom ? { forkedFrom: input.forkedFrom } : {};
  const attributes = [...(settings.searchAttributes ? startingSearchAttributes(settings.model) : []), ...startOnlyAttributes(description)];
  const next = await client.workflow.start<typeof agentWorkflow>(AGENT_WORKFLOW, {
    workflowId,
    ...runStart(client, { task, settings, carried, resumedFrom: { workflowId, runId: description.runId }, ...forkedFrom }, options.taskQueue, `resumed: ${task}`),
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    ...(attributes.length > 0 ? { typedSearchAttributes: attributes } : {}),
    // The job keeps its task priority and fairness key.
    ...priorityOf(description.priority),
  });
  return { workflowId, runId: next.firstExecutionRunId, attached: false };
}

/** The old run's attributes that only a start sets (the run never writes them): the resumed run stays in its task
 * batch (`list --batch`, `result --batch`) and still names the run it was forked from. */
function startOnlyAttributes(description: WorkflowExecutionDescription): SearchAttributePair[] {
  return [AgentTaskBatch, AgentForkedFrom].flatMap((key): SearchAttributePair[] => {
    const value = description.typedSearchAttributes.get(key);
    return value === undefined ? [] : [{ key, value }];
  });
}

function priorityOf(p: Priority | undefined): { priority?: Priority } {
  const kept = compactPriority({ priorityKey: p?.priorityKey || undefined, fairnessKey: p?.fairnessKey || undefined, fairnessWeight: p?.fairnessWeight || undefined });
  return kept ? { priority: kept } : {};
}
