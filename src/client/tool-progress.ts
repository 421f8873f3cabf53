// The tool calls in flight, read from the server's description of the run (`describe()`): each pending runTool
// activity with its attempt, how long it has run, why an earlier attempt ended, and what its last heartbeat
// carried (the tool's latest `progress(...)`, or that it waits for an outside completion). No worker needed.
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import type { ToolCallProgress } from '../core/types.js';
import { pendingActivities, type PendingActivity } from './pending-activities.js';

export interface ToolCallInFlight extends Pick<PendingActivity, 'activityId' | 'attempt' | 'maximumAttempts' | 'state' | 'lastHeartbeatAt'> {
  /** The tool_use id, once the call has heartbeated (its details carry it). */
  toolUseId?: string;
  /** When this attempt started. */
  startedAt?: Date;
  /** The tool's latest progress report. */
  progress?: { message: string; fraction?: number; reportedAt?: Date };
  /** The call waits for `complete-tool` since then (its tool called `context.completeLater()`). */
  waitingForCompletionSince?: Date;
  /** Why the previous attempt ended (a timeout, a crash noticed by the heartbeat timeout, an error). */
  lastFailure?: string;
  /** The MCP task the call runs as: a retry resumes it. */
  mcpTaskId?: string;
}

export async function toolCallsInFlight(client: Client, description: WorkflowExecutionDescription): Promise<ToolCallInFlight[]> {
  const pending = await pendingActivities(client, description, 'runTool');
  return pending.map((a): ToolCallInFlight => {
    const details = isToolProgress(a.details) ? a.details : undefined;
    return {
      activityId: a.activityId,
      ...(details ? { toolUseId: details.toolUseId } : {}),
      attempt: a.attempt,
      maximumAttempts: a.maximumAttempts,
      state: a.state,
      ...(a.lastStartedAt ? { startedAt: a.lastStartedAt } : {}),
      ...(a.lastHeartbeatAt ? { lastHeartbeatAt: a.lastHeartbeatAt } : {}),
      ...(details?.message !== undefined
        ? {
            progress: {
              message: details.message,
              ...(details.fraction !== undefined ? { fraction: details.fraction } : {}),
              ...(details.reportedAt !== undefined ? { reportedAt: new Date(details.reportedAt) } : {}),
            },
          }
        : {}),
      ...(details?.waitingSince !== undefined ? { waitingForCompletionSince: new Date(details.waitingSince) } : {}),
      ...(a.lastFailure ? { lastFailure: a.lastFailure } : {}),
      ...(typeof details?.mcpTaskId === 'string' ? { mcpTaskId: details.mcpTaskId } : {}),
    };
  });
}

function isToolProgress(value: unknown): value is ToolCallProgress {
  return typeof value === 'object' && value !== null && typeof (value as ToolCallProgress).toolUseId === 'string';
}
