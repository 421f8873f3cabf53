// MCP tasks (`execution.taskSupport` on a tool): the call creates a task on the server, then polls it until it ends and
// reads its result. The task id is handed to `started` (the activity keeps it in the call's heartbeat details), so an
// attempt that a crash or a lost worker cut short resumes the same task on the next attempt, on any worker, instead of
// starting the work again.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ToolContext } from '../tools/types.js';
import { abortableSleep } from './text.js';
import { CallToolResultSchema, CreateTaskResultSchema, McpError, type CallToolResult, type Progress, type Tool } from '@modelcontextprotocol/sdk/types.js';

/** How often a task is polled when its server suggests no `pollInterval`. */
const DEFAULT_POLL_MS = 1000;
/** At most this long between polls, whatever the server suggests: a resumed call should not sleep through its task. */
const MAX_POLL_MS = 10_000;

export interface TaskCallOptions {
  signal: AbortSignal;
  timeout: number;
  meta: Record<string, unknown>;
  progress?: (message: string, fraction?: number) => void;
  /** The server's progress notifications (the request then carries a progressToken), for the task's lifetime. */
  onprogress?: (progress: Progress) => void;
  log(message: string): void;
  server: string;
}

/** Whether `tool` is called as a task on this session: it supports or requires it, and the server takes task calls. */
export function callsAsTask(client: Client, tool: Tool | undefined): boolean {
  const support = tool?.execution?.taskSupport;
  return (support === 'required' || support === 'optional') && !!client.getServerCapabilities()?.tasks?.requests?.tools?.call;
}

export async function callToolAsTask(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  task: NonNullable<ToolContext['mcpTask']>,
  options: TaskCallOptions,
): Promise<CallToolResult> {
  const { signal, timeout } = options;
  let taskId = task.resume;
  if (taskId) {
    try {
      await client.experimental.tasks.getTask(taskId, { signal, timeout });
      options.log(`MCP server "${options.server}": "${name}" resumes its task ${taskId} (started by an earlier attempt)`);
    } catch (err) {
      if (!(err instanceof McpError) || signal.aborted) throw err;
      options.log(`MCP server "${options.server}": the task ${taskId} of "${name}" is gone (${err.message}); the call starts a new one`);
      taskId = undefined;
    }
  }
  if (!taskId) {
    const created = await client.request({ method: 'tools/call', params: { name, arguments: args, _meta: options.meta } }, CreateTaskResultSchema, {
      signal,
      timeout,
      task: {},
      ...(options.onprogress ? { onprogress: options.onprogress } : {}),
    });
    taskId = created.task.taskId;
    task.started(taskId);
  }
  for (;;) {
    const status = await client.experimental.tasks.getTask(taskId, { signal, timeout });
    if (status.statusMessage) options.progress?.(status.statusMessage);
    if (status.status === 'completed' || status.status === 'failed' || status.status === 'input_required') {
      // tasks/result blocks until the task ends; a failed task's result is the error result the tool answered with.
      return (await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, { signal, timeout })) as CallToolResult;
    }
    if (status.status === 'cancelled') {
      return { isError: true, content: [{ type: 'text', text: `the MCP task ${taskId} of "${name}" was cancelled on the server` }] };
    }
    await abortableSleep(Math.min(MAX_POLL_MS, status.pollInterval ?? DEFAULT_POLL_MS), signal);
  }
}

/** Cancels a task on the server (best effort, bounded): the run that asked for it was cancelled. */
export async function cancelTask(client: Client, taskId: string): Promise<void> {
  await client.experimental.tasks.cancelTask(taskId, { timeout: 5000 }).catch(() => undefined);
}
