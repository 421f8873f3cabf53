// A run read from the server alone, with no worker and no API key: its history, replayed here through the
// workflow code (replay.ts), answers what the live queries answer, and its last event says how the server
// closed it (an operator's terminate and its reason, a timeout).
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { formatDuration } from '../core/duration.js';
import type { AgentStatusView } from '../core/types.js';
import { assertHistoryReadable } from './readable.js';
import { replayRunHistory, type ReplayedRun } from './replay.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** How the server closed a run the workflow did not end itself. */
export interface EndedByServer {
  status: 'terminated' | 'timed_out';
  /** The operator's reason (`temporal workflow terminate --reason`), or which timeout fired. */
  reason: string;
  /** Who terminated it, as the server recorded it. */
  identity?: string;
}

export interface RunFromHistory extends ReplayedRun {
  workflowId: string;
  runId: string;
  /** What the `agentStatus` query answers; a run the server closed says so (`terminated`, `timed_out`) and has
   * nothing in flight. */
  view: AgentStatusView;
  /** Set when an operator or a timeout closed the run. */
  endedByServer?: EndedByServer;
}

/** Reads the current run of `workflowId` (or the run `runId`) from its history. Runs spread over continue-as-new
 * need only the latest: it carries the whole transcript and the guard state in its input. */
export async function readRunFromHistory(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<RunFromHistory> {
  const handle = client.workflow.getHandle(workflowId, runId);
  const resolvedRunId = runId ?? (await handle.describe()).runId;
  // Pinned to the run described, so a run starting meanwhile (continue-as-new) cannot mix two histories.
  const history = await fetchHistoryInPages(client, workflowId, resolvedRunId);
  await assertHistoryReadable(client, history); // a missing or wrong key: the codec's one-line error
  const replayed = await replayRunHistory(client, history, { workflowId, runId: resolvedRunId });
  const events = history.events ?? [];
  const endedByServer = serverClosure(events);
  const view = endedByServer ? closedView(replayed.view, endedByServer.status) : replayed.view;
  return { workflowId, runId: resolvedRunId, view, messages: replayed.messages, state: replayed.state, endedByServer };
}

/** The run's whole history, page by page. The server's services talk to each other with gRPC's 4 MB message
 * limit, so a page holding a few large events (a task or a reply of a megabyte or two) fails with
 * RESOURCE_EXHAUSTED, which the client retries with backoff for about two minutes. Each page therefore gets a
 * short deadline, and a page that fails or times out is asked for again with two events a page, then one. Without
 * `runId`, the current run's. */
export async function fetchHistoryInPages(client: Client, workflowId: string, runId?: string): Promise<temporal.api.history.v1.IHistory> {
  const events: HistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  let maximumPageSize = 0; // the server's default
  for (;;) {
    let response: temporal.api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse;
    try {
      response = await client.connection.withDeadline(Date.now() + PAGE_DEADLINE_MS, () =>
        client.workflowService.getWorkflowExecutionHistory({
          namespace: client.options.namespace,
          execution: { workflowId, runId },
          nextPageToken,
          maximumPageSize,
        }),
      );
    } catch (err) {
      const code = (err as { code?: number }).code;
      if ((code !== RESOURCE_EXHAUSTED && code !== DEADLINE_EXCEEDED) || maximumPageSize === 1) throw err;
      // No event is over the 2 MB payload limit, so two per page always fit in 4 MB (one, if one is close to it).
      maximumPageSize = maximumPageSize === 0 ? 2 : 1;
      continue;
    }
    events.push(...(response.history?.events ?? []));
    nextPageToken = response.nextPageToken ?? undefined;
    if (!nextPageToken?.length) return { events };
  }
}

const PAGE_DEADLINE_MS = 3_000;
const DEADLINE_EXCEEDED = 4; // gRPC status codes
const RESOURCE_EXHAUSTED = 8;

/** A run the server closed keeps the state it had; it is no longer running, and nothing is in flight. */
function closedView(view: AgentStatusView, status: EndedByServer['status']): AgentStatusView {
  return { ...view, status, inFlight: [], pendingApprovals: [], waitingForMessage: false };
}

/** The terminate or timeout at the end of a history, if that is how the run closed. */
export function serverClosure(events: readonly HistoryEvent[]): EndedByServer | undefined {
  const last = events[events.length - 1];
  const terminated = last?.workflowExecutionTerminatedEventAttributes;
  if (terminated) {
    return {
      status: 'terminated',
      reason: terminated.reason || '(no reason given)',
      ...(terminated.identity ? { identity: terminated.identity } : {}),
    };
  }
  if (last?.workflowExecutionTimedOutEventAttributes) {
    const started = events[0]?.workflowExecutionStartedEventAttributes;
    const limits = [
      ['run timeout', started?.workflowRunTimeout],
      ['execution timeout', started?.workflowExecutionTimeout],
    ] as const;
    const which = limits
      .filter(([, d]) => d?.seconds)
      .map(([name, d]) => `${name} ${formatDuration(Number(d!.seconds) * 1000 + Math.round((d!.nanos ?? 0) / 1e6))}`);
    return { status: 'timed_out', reason: `the workflow ${which.join(' / ') || 'timeout'} expired` };
  }
  return undefined;
}
