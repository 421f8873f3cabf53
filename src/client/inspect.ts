// Reading runs: live status (a query, with a fallback when no worker answers), the whole transcript, and the
// list of recent runs from visibility.
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { AgentStatusView, MessageParam } from '../core/types.js';
import * as SA from '../core/search-attributes.js';
import { AGENT_WORKFLOW, agentStatus, transcriptPage } from '../workflows/definitions.js';
import { modelCallsInFlight, type ModelCallInFlight } from './model-progress.js';

/** How long to wait for a worker to answer a query before saying the live details are unavailable. */
export const QUERY_TIMEOUT_MS = 3_000;

export interface SearchAttributeValues {
  status?: string;
  steps?: number;
  tokens?: number;
  costUsd?: number;
  stopReason?: string;
  guard?: string;
  model?: string;
}

export type StatusReport = (
  | { live: true; view: AgentStatusView }
  | {
      live: false;
      /** Why the live details are missing (no worker answered in time, ...). */
      reason: string;
      workflowId: string;
      runId: string;
      /** Temporal's own status of the execution: RUNNING, COMPLETED, FAILED, ... */
      executionStatus: string;
      startTime: Date;
      closeTime?: Date;
      historyLength: number;
      attributes: SearchAttributeValues;
    }
) & {
  /** The model call in flight, with what it has streamed so far (from the server's description: no worker). */
  modelCalls: ModelCallInFlight[];
};

/** Live state from the `agentStatus` query; when no worker answers within the timeout (a run started with
 * `start` and no worker up), `describe()` and the search attributes instead of hanging. */
export async function getStatus(client: Client, workflowId: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<StatusReport> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe(); // WorkflowNotFoundError for an unknown id
  const modelCalls = await modelCallsInFlight(client, description);
  try {
    const view = await client.withDeadline(Date.now() + timeoutMs, () => handle.query(agentStatus));
    return { live: true, view, modelCalls };
  } catch (err) {
    return {
      live: false,
      reason: `no worker answered the status query within ${timeoutMs} ms (${shortError(err)})`,
      workflowId,
      runId: description.runId,
      executionStatus: description.status.name,
      startTime: description.startTime,
      closeTime: description.closeTime,
      historyLength: description.historyLength,
      attributes: searchAttributesOf(description),
      modelCalls,
    };
  }
}

/** The whole conversation of a run, read page by page from its latest run (which holds the transcript of
 * every run before it, carried through continue-as-new). Needs a worker to answer the query. */
export async function getTranscript(client: Client, workflowId: string, timeoutMs = 10_000): Promise<MessageParam[]> {
  const handle = client.workflow.getHandle(workflowId);
  await handle.describe();
  const messages: MessageParam[] = [];
  for (;;) {
    const page = await client
      .withDeadline(Date.now() + timeoutMs, () => handle.query(transcriptPage, messages.length, Number.MAX_SAFE_INTEGER))
      .catch((err) => {
        throw new Error(`reading the transcript needs a running worker: ${shortError(err)} (start one with \`worker\`)`);
      });
    messages.push(...page.messages);
    if (messages.length >= page.total || page.messages.length === 0) return messages;
  }
}

export interface RunSummary {
  workflowId: string;
  runId: string;
  executionStatus: string;
  startTime: Date;
  closeTime?: Date;
  attributes: SearchAttributeValues;
}

/** Recent agent runs from visibility, newest first; `status` filters on the AgentStatus search attribute. */
export async function listRuns(client: Client, options: { status?: string; limit?: number } = {}): Promise<RunSummary[]> {
  const filters = [`WorkflowType = '${AGENT_WORKFLOW}'`];
  if (options.status) filters.push(`${SA.AgentStatus.name} = '${options.status.replace(/'/g, '')}'`);
  const runs: RunSummary[] = [];
  for await (const info of client.workflow.list({ query: filters.join(' AND '), pageSize: 100 })) {
    runs.push({
      workflowId: info.workflowId,
      runId: info.runId,
      executionStatus: info.status.name,
      startTime: info.startTime,
      closeTime: info.closeTime,
      attributes: searchAttributesOf(info),
    });
    if (runs.length >= (options.limit ?? 20)) break;
  }
  return runs;
}

function searchAttributesOf(info: Pick<WorkflowExecutionDescription, 'typedSearchAttributes'>): SearchAttributeValues {
  const get = info.typedSearchAttributes;
  return {
    status: get.get(SA.AgentStatus),
    steps: get.get(SA.AgentSteps),
    tokens: get.get(SA.AgentTokens),
    costUsd: get.get(SA.AgentCostUsd),
    stopReason: get.get(SA.AgentStopReason) || undefined,
    guard: get.get(SA.AgentGuard) || undefined,
    model: get.get(SA.AgentModel),
  };
}

function shortError(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0];
}
