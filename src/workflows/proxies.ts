// The workflow's view of the activities: typed proxies, the options each call is scheduled with, and the
// summary the Temporal UI shows for it.
import { ActivityCancellationType, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { Priority } from '@temporalio/common';
import type { createActivities } from '../activities/index.js';
import { LOCAL_DESCRIBE_TOOLS_OPTIONS, MODEL_CALL_OPTIONS, modelTaskQueue, TOOL_CALL_OPTIONS } from '../core/policies.js';
import { scheduleNote, toolCallActivityOptions, type ToolCallSchedule } from '../core/tool-policy.js';
import { oneLine } from '../core/transcript.js';
import { RUN_QUEUE_START_TIMEOUT, type ModelCallRefused } from '../core/model-call-route.js';
import type { ModelCallByDigest, ModelCallInput, ModelReply, RecordedTools, ToolCallInput, ToolOutcome } from '../core/types.js';
import { takesPatch } from './patches.js';

const { callModel, runTool, describeTools } = proxyActivities<ReturnType<typeof createActivities>>(MODEL_CALL_OPTIONS);
/** Tool calls scheduled from their policy: options are merged into the proxy's, so this one has none a policy
 * leaves out (a call completed from outside must have no heartbeat timeout). */
const { runTool: runToolWithPolicy } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: TOOL_CALL_OPTIONS.startToCloseTimeout,
});

/** Fast tools' calls (`fast: true`) as local activities: options are given per call, from the tool's policy. */
const {
  runTool: runToolLocally,
  describeTools: describeToolsLocally,
  callModel: callModelLocally,
} = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: TOOL_CALL_OPTIONS.startToCloseTimeout,
});

/** Patch id: a call of a tool defined with `fast: true` runs as a local activity (in the worker running the workflow
 * task: no dispatch through the server and no workflow task of its own) instead of an activity. Only runs that call
 * such a tool check it (it is asked at the call), so no other run's history changes. */
export const FAST_TOOLS_LOCAL = 'fast-tools-local';

/** Patch id: activities are scheduled with WAIT_CANCELLATION_COMPLETED instead of TRY_CANCEL. With TRY_CANCEL a
 * cancelled run completed while its in-flight call was still pending on the server, and the closed run showed
 * that call as pending forever (the worker's acknowledgement came too late to be recorded). Waiting costs at
 * most a heartbeat interval: the cancellation reaches the call with its next heartbeat. A deadline still stops
 * the run at once (it does not wait for the loop it cancels: see raceDeadline). Runs recorded before this patch
 * replay with TRY_CANCEL. */
export const WAIT_FOR_CANCELLED_CALLS = 'wait-for-cancelled-calls';

/** Whether this run waits for a cancelled activity to acknowledge (see WAIT_FOR_CANCELLED_CALLS). */
export function waitsForCancelledCalls(): boolean {
  return takesPatch(WAIT_FOR_CANCELLED_CALLS);
}

/** Patch id: model calls are scheduled on their own task queue (`<taskQueue>-model`, served by a worker whose
 * activity slots bound concurrent model calls), not on the run's queue. A model call waiting for a slot then
 * waits in the server's queue: it holds none of the worker's slots (tool calls go on) and its start-to-close
 * timeout has not started. Runs recorded before this patch keep scheduling model calls on the run's queue,
 * where workers still register callModel for them. */
export const MODEL_CALLS_ON_OWN_QUEUE = 'model-calls-on-own-queue';

/** The task queue this run's model calls go to: the model queue, or (runs from before the patch) the run's own. */
function modelCallQueue(): { taskQueue?: string } {
  return takesPatch(MODEL_CALLS_ON_OWN_QUEUE) ? { taskQueue: modelTaskQueue(workflowInfo().taskQueue) } : {};
}

/** Patch id: a run started with a priority or fairness key schedules every activity with it, so it shows on the
 * activity's scheduled event (Temporal inherits it in matching either way) and a tool or model call keeps it
 * whatever the defaults become. Only such runs take it; a run without one schedules as before. */
export const TASK_PRIORITY = 'task-priority';

/** The run's priority (as it was started, or as a sub-agent's parent gave it), for its activities. */
export function runPriority(): { priority?: Priority } {
  const p = workflowInfo().priority;
  const own: Priority = {
    ...(p?.priorityKey ? { priorityKey: p.priorityKey } : {}),
    ...(p?.fairnessKey ? { fairnessKey: p.fairnessKey } : {}),
    ...(p?.fairnessWeight ? { fairnessWeight: p.fairnessWeight } : {}),
  };
  if (Object.keys(own).length === 0 || !takesPatch(TASK_PRIORITY)) return {};
  return { priority: own };
}

function cancellation() {
  return {
    cancellationType: waitsForCancelledCalls()
      ? ActivityCancellationType.WAIT_CANCELLATION_COMPLETED
      : ActivityCancellationType.TRY_CANCEL,
  };
}

export interface ModelCallOptions {
  summary?: string;
  heartbeatTimeoutMs?: number;
  /** On the run's own queue (model-call-route.ts), with a start timeout there; else the model queue. */
  onRunQueue?: boolean;
  /** A local activity first (the run's `localModelCalls`; model-call-route.ts). */
  local?: boolean;
}

/** A model call as a local activity (`localModelCalls`; model-call-route.ts): the worker running the workflow task
 * runs it inside that task, with the model call's timeout and retry policy. No heartbeat: a local activity has none
 * (a worker that dies mid-call is noticed when its workflow task times out, and the call is made again). */
export function scheduleLocalModelCall(input: ModelCallInput | ModelCallByDigest, step: number, options: ModelCallOptions = {}): Promise<ModelReply | ModelCallRefused> {
  const { startToCloseTimeout, retry } = MODEL_CALL_OPTIONS;
  return callModelLocally.executeWithOptions({ startToCloseTimeout, retry, ...cancellation(), summary: modelCallSummary(input, step, options) }, [input]);
}

/** `model #3 · 12 messages`, unless the call has a summary of its own. */
function modelCallSummary(input: ModelCallInput | ModelCallByDigest, step: number, options: ModelCallOptions): string {
  const count = input.transcript.messageCount;
  return options.summary ?? `model #${step} · ${count} message${count === 1 ? '' : 's'}`;
}

export function scheduleModelCall(input: ModelCallInput | ModelCallByDigest, step: number, options: ModelCallOptions = {}): Promise<ModelReply | ModelCallRefused> {
  const summary = modelCallSummary(input, step, options);
  const heartbeat = options.heartbeatTimeoutMs ? { heartbeatTimeout: options.heartbeatTimeoutMs } : {};
  // In this order: takesPatch() ids must be asked in the order runs recorded them (cancellation's first).
  const cancel = cancellation();
  const queue = options.onRunQueue ? { scheduleToStartTimeout: RUN_QUEUE_START_TIMEOUT } : modelCallQueue();
  return callModel.executeWithOptions({ ...MODEL_CALL_OPTIONS, ...cancel, ...queue, ...heartbeat, ...runPriority(), summary }, [input]);
}

/** A tool call. `schedule` is its tool's policy over the run's defaults (runs from the `tool-call-policies` patch
 * on); without it, the options every call had before: TOOL_CALL_OPTIONS and the run's heartbeat timeout. */
export function scheduleToolCall(
  input: ToolCallInput,
  options: { schedule?: ToolCallSchedule; heartbeatTimeoutMs?: number },
): Promise<ToolOutcome> {
  const { schedule } = options;
  const summary = oneLine(`${input.name}(${argsPreview(input.input)})`, 200) + (schedule ? scheduleNote(schedule) : '');
  if (schedule?.fast && takesPatch(FAST_TOOLS_LOCAL)) {
    const { startToCloseTimeout, retry } = toolCallActivityOptions(schedule);
    return runToolLocally.executeWithOptions({ startToCloseTimeout, retry, ...cancellation(), summary }, [input]);
  }
  if (schedule) {
    // A call waiting for an outside completion cannot acknowledge a cancel (no worker holds it): it is abandoned.
    const cancel = schedule.completesLater ? { cancellationType: ActivityCancellationType.TRY_CANCEL } : cancellation();
    return runToolWithPolicy.executeWithOptions({ ...toolCallActivityOptions(schedule), ...cancel, ...runPriority(), summary }, [input]);
  }
  const heartbeat = options.heartbeatTimeoutMs ? { heartbeatTimeout: options.heartbeatTimeoutMs } : {};
  return runTool.executeWithOptions({ ...TOOL_CALL_OPTIONS, ...cancellation(), ...heartbeat, ...runPriority(), summary }, [input]);
}

/** Once, when a run starts: its tools' call policies (`policies`) and the MCP definitions it will use (see
 * tool-definitions.ts); `local`: in a local activity (a run naming no MCP tool, from the changes of 2026-12 on). */
export function scheduleDescribeTools(
  tools: string[],
  mcpNames: string[],
  policies: boolean,
  heartbeatTimeoutMs?: number,
  agents?: string[],
  local = false,
): Promise<RecordedTools> {
  const summary = oneLine(mcpNames.length > 0 ? `describe tools: ${mcpNames.join(', ')}` : `describe tools: ${tools.join(', ')}`, 200);
  const input = agents ? { tools, policies: true, agents } : policies ? { tools, policies: true } : { tools };
  if (local) return describeToolsLocally.executeWithOptions({ ...LOCAL_DESCRIBE_TOOLS_OPTIONS, ...cancellation(), summary }, [input]);
  const heartbeat = heartbeatTimeoutMs ? { heartbeatTimeout: heartbeatTimeoutMs } : {};
  return describeTools.executeWithOptions({ ...TOOL_CALL_OPTIONS, ...cancellation(), ...heartbeat, ...runPriority(), summary }, [input]);
}

/** `web_search("population of France")` rather than `web_search({"query":"population of France"})`. */
function argsPreview(input: unknown): string {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const values = Object.values(input);
    if (values.length === 1) return JSON.stringify(values[0]);
  }
  return JSON.stringify(input);
}
