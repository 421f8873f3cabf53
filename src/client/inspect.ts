// Reading runs: status and transcript (from a worker's answer to a query while a run is running and a worker
// answers; from the run's history otherwise, with no worker at all), and the list of recent runs from
// visibility.
import { roundUsd, withRoundedCosts } from '../core/pricing.js';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { AgentStatusView, ChildRunRecord, MessageParam } from '../core/types.js';
import * as SA from '../core/search-attributes.js';
import { AGENT_WORKFLOW, agentStatus, transcriptPage } from '../workflows/definitions.js';
import { modelCallsInFlight, type ModelCallInFlight } from './model-progress.js';
import { readRunFromHistory, type EndedByServer } from './history.js';
import { toolCallsInFlight, type ToolCallInFlight } from './tool-progress.js';
import { EncryptionKeyError } from '../codec/keys.js';

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

/** What the server knows of a run without asking a worker: its description and search attributes. */
export interface ServerRecord {
  workflowId: string;
  runId: string;
  /** Temporal's own status of the execution: RUNNING, COMPLETED, FAILED, TERMINATED, TIMED_OUT, ... */
  executionStatus: string;
  startTime: Date;
  closeTime?: Date;
  historyLength: number;
  attributes: SearchAttributeValues;
}

export type StatusReport = (
  /** A worker answered the `agentStatus` query. */
  | { live: true; view: AgentStatusView }
  | (ServerRecord & {
      live: false;
      /** Why no worker was asked or none answered (the run has ended, no worker within the timeout). */
      reason: string;
      /** A worker holds one of the run's workflow tasks (a local model call runs in it): it is alive, and answers
       * when it next reports the task. */
      workerBusy?: true;
      /** The same state, read from the run's history (no worker needed); absent only when the history could
       * not be replayed, and `reason` says why. */
      view?: AgentStatusView;
      /** How the server closed a run the workflow did not end itself (terminate, timeout). */
      endedByServer?: EndedByServer;
    })
) & {
  /** The model call in flight, with what it has streamed so far (from the server's description: no worker). */
  modelCalls: ModelCallInFlight[];
  /** The tool calls in flight: attempt, how long, the latest progress, an outside completion awaited (likewise). */
  toolCalls: ToolCallInFlight[];
  /** The child runs of its sub-agents (`agent__*` calls), as the run last heard of them; absent when it never
   * delegated. */
  children?: ChildRunRecord[];
};

/** The state of a run. A running one: the `agentStatus` query, answered by a worker within the timeout. A
 * closed one, or a running one that no worker answers for: its history, replayed here (no worker, no API
 * key). Should even that fail, the server's description and search attributes. */
export async function getStatus(client: Client, workflowId: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<StatusReport> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe(); // WorkflowNotFoundError for an unknown id
  const [modelCalls, toolCalls] = await Promise.all([modelCallsInFlight(client, description), toolCallsInFlight(client, description)]);
  let reason = `the run has ended (${description.status.name})`;
  let workerBusy = false;
  if (description.status.name === 'RUNNING') {
    try {
      const view = withRoundedCosts(await client.withDeadline(Date.now() + timeoutMs, () => handle.query(agentStatus)));
      return { live: true, view, modelCalls, toolCalls, ...childrenOf(view) };
    } catch (err) {
      throwIfKeyError(err); // a worker answered, in a form this client cannot read
      workerBusy = workflowTaskStarted(description);
      reason = workerBusy
        ? 'its worker is inside a workflow task (a local model call, for one) and answers queries when it next reports it (within 8 s)'
        : `no worker answered the status query within ${timeoutMs} ms (${shortError(err)})`;
    }
  }
  const record = { ...serverRecord(workflowId, description), modelCalls, toolCalls, ...(workerBusy ? { workerBusy: true as const } : {}) };
  try {
    const run = await readRunFromHistory(client, workflowId, description.runId);
    const view = run.view && withRoundedCosts(run.view);
    return { ...record, live: false, reason, view, ...(run.endedByServer ? { endedByServer: run.endedByServer } : {}), ...childrenOf(view) };
  } catch (err) {
    throwIfKeyError(err); // a key problem is the answer, not a degraded report
    return { ...record, live: false, reason: `${reason}; its history could not be replayed: ${shortError(err)}` };
  }
}

/** Whether a worker holds a workflow task of the run now: a query waits for it to report the task (a local
 * activity's task reports every 8 s, 80 % of the 10 s workflow task timeout). */
function workflowTaskStarted(description: WorkflowExecutionDescription): boolean {
  return description.raw.pendingWorkflowTask?.state === PENDING_WORKFLOW_TASK_STATE_STARTED;
}
/** temporal.api.enums.v1.PendingWorkflowTaskState's STARTED, by number (the proto package is CommonJS). */
const PENDING_WORKFLOW_TASK_STATE_STARTED = 2;

const childrenOf = (view: AgentStatusView | undefined) => (view?.children ? { children: view.children } : {});

function serverRecord(workflowId: string, description: WorkflowExecutionDescription): ServerRecord {
  return {
    workflowId,
    runId: description.runId,
    executionStatus: description.status.name,
    startTime: description.startTime,
    closeTime: description.closeTime,
    historyLength: description.historyLength,
    attributes: searchAttributesOf(description),
  };
}

/** The whole conversation of a job (its latest run holds the transcript of every run before it, carried
 * through continue-as-new). A closed run is read from its history; a running one from the `transcriptPage`
 * query, or from its history when no worker answers within the timeout. */
export async function getTranscript(client: Client, workflowId: string, timeoutMs = QUERY_TIMEOUT_MS): Promise<MessageParam[]> {
  const handle = client.workflow.getHandle(workflowId);
  const { runId, status } = await handle.describe();
  const fromHistory = () => readRunFromHistory(client, workflowId, runId).then((run) => run.messages);
  const fromQuery = () => queryTranscript(client, workflowId, runId, timeoutMs);
  const [first, second] = status.name === 'RUNNING' ? [fromQuery, fromHistory] : [fromHistory, fromQuery];
  try {
    return await first();
  } catch (firstErr) {
    try {
      return await second();
    } catch (secondErr) {
      throwIfKeyError(firstErr);
      throwIfKeyError(secondErr);
      const [queryErr, historyErr] = first === fromQuery ? [firstErr, secondErr] : [secondErr, firstErr];
      throw new Error(
        `the transcript of ${workflowId} could not be read: its history did not replay (${shortError(historyErr)}) ` +
          `and no worker answered the query (${shortError(queryErr)})`,
      );
    }
  }
}

async function queryTranscript(client: Client, workflowId: string, runId: string, timeoutMs: number): Promise<MessageParam[]> {
  const handle = client.workflow.getHandle(workflowId, runId);
  const messages: MessageParam[] = [];
  for (;;) {
    const page = await client.withDeadline(Date.now() + timeoutMs, () =>
      handle.query(transcriptPage, messages.length, Number.MAX_SAFE_INTEGER),
    );
    messages.push(...page.messages);
    if (messages.length >= page.total || page.messages.length === 0) return messages;
  }
}

export interface RunSummary extends Omit<ServerRecord, 'historyLength'> {
  /** Whether this is the current run of its workflow id (an id has earlier runs after continue-as-new,
   * `resume` or `temporal workflow reset`; commands given the id act on the current one). */
  current: boolean;
  /** The run that started this one as a sub-agent (a child workflow). */
  parentWorkflowId?: string;
  /** The Worker Deployment version (build id) the run is on, when its worker is versioned: pinned runs stay on it,
   * so the runs still on an old build id are what keeps its workers needed (docs/operations.md, "Upgrading
   * workers"). */
  buildId?: string;
  /** The schedule that started it (Temporal's TemporalScheduledById). */
  schedule?: string;
  /** The task batch it belongs to (`start --tasks`: AgentTaskBatch). */
  taskBatch?: string;
}

/** `--status` values that are the server's, not the workflow's: it never sees its own terminate or timeout. */
const EXECUTION_STATUS_FILTERS: Record<string, string> = { terminated: 'Terminated', timed_out: 'TimedOut' };

export interface ListRunsOptions {
  status?: string;
  limit?: number;
  /** Only the runs this schedule started. */
  schedule?: string;
  /** Only the runs of this task batch (`start --tasks`). */
  batch?: string;
}

/** Recent agent runs from visibility, newest first; `status` filters on the AgentStatus search attribute (or,
 * for `terminated` and `timed_out`, on the execution status), `schedule` and `batch` on the run's schedule or
 * task batch. */
export async function listRuns(client: Client, options: ListRunsOptions = {}): Promise<RunSummary[]> {
  const filters = [`WorkflowType = '${AGENT_WORKFLOW}'`];
  const quoted = (v: string) => v.replace(/['"\\]/g, '');
  const status = options.status && quoted(options.status);
  if (status && EXECUTION_STATUS_FILTERS[status]) filters.push(`ExecutionStatus = '${EXECUTION_STATUS_FILTERS[status]}'`);
  else if (status) filters.push(`${SA.AgentStatus.name} = '${status}'`);
  if (options.schedule !== undefined) filters.push(`${SA.SCHEDULED_BY_ID} = '${quoted(options.schedule)}'`);
  if (options.batch !== undefined) filters.push(`${SA.AgentTaskBatch.name} = '${quoted(options.batch)}'`);
  const runs: Array<Omit<RunSummary, 'current'>> = [];
  for await (const info of client.workflow.list({ query: filters.join(' AND '), pageSize: 100 })) {
    runs.push({
      workflowId: info.workflowId,
      runId: info.runId,
      executionStatus: info.status.name,
      startTime: info.startTime,
      closeTime: info.closeTime,
      attributes: searchAttributesOf(info),
      ...(info.parentExecution?.workflowId ? { parentWorkflowId: info.parentExecution.workflowId } : {}),
      ...buildIdOf(info),
      ...origin(info),
    });
    if (runs.length >= (options.limit ?? 20)) break;
  }
  const current = await currentRunIds(client, [...new Set(runs.map((r) => r.workflowId))]);
  return runs.map((r) => ({ ...r, current: current.get(r.workflowId) === r.runId }));
}

/** The build id of a listed run, from the server's own search attributes (a listing carries no versioning info):
 * TemporalWorkerDeploymentVersion is `<deployment>:<build id>`. */
function buildIdOf(info: { searchAttributes: Record<string, unknown> }): { buildId?: string } {
  const first = (name: string) => {
    const v = info.searchAttributes[name];
    return typeof (Array.isArray(v) ? v[0] : v) === 'string' ? String(Array.isArray(v) ? v[0] : v) : undefined;
  };
  const version = first('TemporalWorkerDeploymentVersion');
  if (!version) return {};
  const deployment = first('TemporalWorkerDeployment');
  const buildId = deployment && version.startsWith(`${deployment}:`) ? version.slice(deployment.length + 1) : version.slice(version.indexOf(':') + 1);
  return buildId ? { buildId } : {};
}

/** The schedule or task batch a listed run came from. */
function origin(info: { searchAttributes: Record<string, unknown>; typedSearchAttributes: WorkflowExecutionDescription['typedSearchAttributes'] }): Pick<RunSummary, 'schedule' | 'taskBatch'> {
  const scheduled = info.searchAttributes[SA.SCHEDULED_BY_ID];
  const schedule = Array.isArray(scheduled) ? scheduled[0] : scheduled;
  const taskBatch = info.typedSearchAttributes.get(SA.AgentTaskBatch);
  return { ...(typeof schedule === 'string' && schedule ? { schedule } : {}), ...(taskBatch ? { taskBatch } : {}) };
}

/** The current run of each workflow id (what `describe()` of the id answers), a few at a time. */
async function currentRunIds(client: Client, workflowIds: string[]): Promise<Map<string, string>> {
  const current = new Map<string, string>();
  for (let i = 0; i < workflowIds.length; i += 8) {
    await Promise.all(
      workflowIds.slice(i, i + 8).map(async (id) => {
        const description = await client.workflow.getHandle(id).describe().catch(() => undefined);
        if (description) current.set(id, description.runId);
      }),
    );
  }
  return current;
}

function searchAttributesOf(info: Pick<WorkflowExecutionDescription, 'typedSearchAttributes'>): SearchAttributeValues {
  const get = info.typedSearchAttributes;
  return {
    status: get.get(SA.AgentStatus),
    steps: get.get(SA.AgentSteps),
    tokens: get.get(SA.AgentTokens),
    costUsd: roundUsd(get.get(SA.AgentCostUsd)),
    stopReason: get.get(SA.AgentStopReason) || undefined,
    guard: get.get(SA.AgentGuard) || undefined,
    model: get.get(SA.AgentModel),
  };
}

/** Throws the codec's error for a missing or wrong key (EncryptionKeyError) when `err` is, or was caused by, one. */
function throwIfKeyError(err: unknown): void {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof EncryptionKeyError) throw e;
  }
}

function shortError(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0];
}
