// The workflow's view of the activities: typed proxies, the options each call is scheduled with, and the
// summary the Temporal UI shows for it.
import { ActivityCancellationType, ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { Priority } from '@temporalio/common';
import type { createActivities } from '../activities/index.js';
import { LOCAL_DESCRIBE_TOOLS_OPTIONS, MODEL_CALL_OPTIONS, TOOL_CALL_OPTIONS, WORKER_STOPPING_FAILURE_TYPE } from '../core/policies.js';
import { scheduleNote, toolCallActivityOptions, type ToolCallSchedule } from '../core/tool-policy.js';
import { oneLine } from '../core/transcript.js';
import type { ModelCallByDigest, ModelReply, RecordedTools, ToolCallInput, ToolOutcome } from '../core/types.js';

const { callModel, runTool, describeTools } = proxyActivities<ReturnType<typeof createActivities>>(MODEL_CALL_OPTIONS);
/** Tool calls scheduled from their policy: options are merged into the proxy's, so this one has none a policy
 * leaves out (a call completed from outside must have no heartbeat timeout). */
const { runTool: runToolWithPolicy } = proxyActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: TOOL_CALL_OPTIONS.startToCloseTimeout,
});

/** Local activities: fast tools' calls (`fast: true`), a tool-less run's description of its tools, and model calls
 * with `localModelCalls`; options are given per call. */
const {
  runTool: runToolLocally,
  describeTools: describeToolsLocally,
  callModel: callModelLocally,
} = proxyLocalActivities<ReturnType<typeof createActivities>>({
  startToCloseTimeout: TOOL_CALL_OPTIONS.startToCloseTimeout,
});

/** Every activity waits for a cancelled call to acknowledge (WAIT_CANCELLATION_COMPLETED), so a cancelled run never
 * closes while its in-flight call still shows as pending on the server. It costs at most a heartbeat interval: the
 * cancellation reaches the call with its next heartbeat. A deadline still stops the run at once (raceDeadline). */
export const CANCELLATION = { cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED } as const;

/** The run's priority (as it was started, or as a sub-agent's parent gave it), for its activities: it then shows on
 * each scheduled event (Temporal inherits it in matching either way), and a call keeps it whatever the defaults
 * become. */
export function runPriority(): { priority?: Priority } {
  const p = workflowInfo().priority;
  const own: Priority = {
    ...(p?.priorityKey ? { priorityKey: p.priorityKey } : {}),
    ...(p?.fairnessKey ? { fairnessKey: p.fairnessKey } : {}),
    ...(p?.fairnessWeight ? { fairnessWeight: p.fairnessWeight } : {}),
  };
  return Object.keys(own).length === 0 ? {} : { priority: own };
}

export interface ModelCallOptions {
  summary?: string;
  heartbeatTimeoutMs?: number;
  /** A local activity (the run's `localModelCalls`), else an activity on the run's own task queue. */
  local?: boolean;
}

/** `model #3 · 12 messages`, unless the call has a summary of its own. */
export function modelCallSummary(input: ModelCallByDigest, step: number, options: ModelCallOptions): string {
  const count = input.transcript.messageCount;
  return options.summary ?? `model #${step} · ${count} message${count === 1 ? '' : 's'}`;
}

/** A model call: an activity on the run's own task queue, which Temporal hands straight back to the worker that
 * scheduled it when that worker has a free activity slot (eager dispatch); with `local`, a local activity run inside
 * the workflow task (no dispatch at all; no heartbeat: a worker that dies mid-call is noticed when its workflow task
 * times out, and the call is made again). A local call its worker ended because it was shutting down is made again as
 * an activity, which another worker takes (activities/local-model-calls.ts says why). */
export function scheduleModelCall(input: ModelCallByDigest, step: number, options: ModelCallOptions = {}): Promise<ModelReply> {
  const summary = modelCallSummary(input, step, options);
  if (options.local) return scheduleLocalModelCall(input, summary, options);
  return scheduleModelActivity(input, summary, options);
}

/** The call as an activity (not an async function: the activity's own promise is the call's, no second one). */
function scheduleModelActivity(input: ModelCallByDigest, summary: string, options: ModelCallOptions): Promise<ModelReply> {
  const heartbeat = options.heartbeatTimeoutMs ? { heartbeatTimeout: options.heartbeatTimeoutMs } : {};
  return callModel.executeWithOptions({ ...MODEL_CALL_OPTIONS, ...CANCELLATION, ...heartbeat, ...runPriority(), summary }, [input]);
}

/** The call as a local activity; made again as an activity when its worker was stopping. */
async function scheduleLocalModelCall(input: ModelCallByDigest, summary: string, options: ModelCallOptions): Promise<ModelReply> {
  const { startToCloseTimeout, retry } = MODEL_CALL_OPTIONS;
  try {
    return await callModelLocally.executeWithOptions({ startToCloseTimeout, retry, ...CANCELLATION, summary }, [input]);
  } catch (err) {
    if (!endedByStoppingWorker(err)) throw err;
  }
  return scheduleModelActivity(input, summary, options);
}

/** Whether a local call failed because its worker was stopping: the failure comes as the activity's own (a local
 * activity's), or wrapped in an ActivityFailure. */
function endedByStoppingWorker(err: unknown): boolean {
  const failure = err instanceof ActivityFailure ? err.cause : err;
  return failure instanceof ApplicationFailure && failure.type === WORKER_STOPPING_FAILURE_TYPE;
}

/** A tool call. `schedule` is its tool's policy over the run's defaults (from the policies the run recorded when it
 * started, tool-definitions.ts); a tool-less run has none: TOOL_CALL_OPTIONS and the run's heartbeat timeout. */
export function scheduleToolCall(
  input: ToolCallInput,
  options: { schedule?: ToolCallSchedule; heartbeatTimeoutMs?: number },
): Promise<ToolOutcome> {
  const { schedule } = options;
  const summary = oneLine(`${input.name}(${argsPreview(input.input)})`, 200) + (schedule ? scheduleNote(schedule) : '');
  if (schedule?.fast) {
    const { startToCloseTimeout, retry } = toolCallActivityOptions(schedule);
    return runToolLocally.executeWithOptions({ startToCloseTimeout, retry, ...CANCELLATION, summary }, [input]);
  }
  if (schedule) {
    // A call waiting for an outside completion cannot acknowledge a cancel (no worker holds it): it is abandoned.
    const cancel = schedule.completesLater ? { cancellationType: ActivityCancellationType.TRY_CANCEL } : CANCELLATION;
    return runToolWithPolicy.executeWithOptions({ ...toolCallActivityOptions(schedule), ...cancel, ...runPriority(), summary }, [input]);
  }
  const heartbeat = options.heartbeatTimeoutMs ? { heartbeatTimeout: options.heartbeatTimeoutMs } : {};
  return runTool.executeWithOptions({ ...TOOL_CALL_OPTIONS, ...CANCELLATION, ...heartbeat, ...runPriority(), summary }, [input]);
}

/** Once, when a run starts: its tools' call policies and the MCP and sub-agent definitions it will use (see
 * tool-definitions.ts); `local`: in a local activity (a run naming no MCP tool: no I/O to wait for). */
export function scheduleDescribeTools(tools: string[], mcpNames: string[], heartbeatTimeoutMs?: number, agents?: string[], local = false): Promise<RecordedTools> {
  const summary = oneLine(mcpNames.length > 0 ? `describe tools: ${mcpNames.join(', ')}` : `describe tools: ${tools.join(', ')}`, 200);
  const input = agents ? { tools, agents } : { tools };
  if (local) return describeToolsLocally.executeWithOptions({ ...LOCAL_DESCRIBE_TOOLS_OPTIONS, ...CANCELLATION, summary }, [input]);
  const heartbeat = heartbeatTimeoutMs ? { heartbeatTimeout: heartbeatTimeoutMs } : {};
  return describeTools.executeWithOptions({ ...TOOL_CALL_OPTIONS, ...CANCELLATION, ...heartbeat, ...runPriority(), summary }, [input]);
}

/** `web_search("population of France")` rather than `web_search({"query":"population of France"})`. */
function argsPreview(input: unknown): string {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const values = Object.values(input);
    if (values.length === 1) return JSON.stringify(values[0]);
  }
  return JSON.stringify(input);
}
