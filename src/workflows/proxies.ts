// The workflow's view of the activities: typed proxies, the options each call is scheduled with, and the
// summary the Temporal UI shows for it.
import { ActivityCancellationType, proxyActivities } from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import { MODEL_CALL_OPTIONS, TOOL_CALL_OPTIONS } from '../core/policies.js';
import { oneLine } from '../core/transcript.js';
import type { ModelCallInput, ModelReply, ToolCallInput, ToolOutcome } from '../core/types.js';

const { callModel, runTool } = proxyActivities<ReturnType<typeof createActivities>>(MODEL_CALL_OPTIONS);

// TRY_CANCEL: when the deadline fires or the run is cancelled, the workflow stops waiting at once instead of
// waiting for an in-flight call to acknowledge the cancellation.
const TRY_CANCEL = { cancellationType: ActivityCancellationType.TRY_CANCEL };

export function scheduleModelCall(
  input: ModelCallInput,
  step: number,
  options: { summary?: string; heartbeatTimeoutMs?: number } = {},
): Promise<ModelReply> {
  const count = input.transcript.messageCount;
  const summary = options.summary ?? `model #${step} · ${count} message${count === 1 ? '' : 's'}`;
  const heartbeat = options.heartbeatTimeoutMs ? { heartbeatTimeout: options.heartbeatTimeoutMs } : {};
  return callModel.executeWithOptions({ ...MODEL_CALL_OPTIONS, ...TRY_CANCEL, ...heartbeat, summary }, [input]);
}

export function scheduleToolCall(input: ToolCallInput, heartbeatTimeoutMs?: number): Promise<ToolOutcome> {
  const summary = oneLine(`${input.name}(${argsPreview(input.input)})`, 200);
  const heartbeat = heartbeatTimeoutMs ? { heartbeatTimeout: heartbeatTimeoutMs } : {};
  return runTool.executeWithOptions({ ...TOOL_CALL_OPTIONS, ...TRY_CANCEL, ...heartbeat, summary }, [input]);
}

/** `web_search("population of France")` rather than `web_search({"query":"population of France"})`. */
function argsPreview(input: unknown): string {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const values = Object.values(input);
    if (values.length === 1) return JSON.stringify(values[0]);
  }
  return JSON.stringify(input);
}
