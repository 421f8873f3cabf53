// What a run fixes about its tools when it starts: one describeTools activity asks a worker for the MCP tool
// definitions it will use and the call policies of its tools (timeout, heartbeat, retry); its result is recorded
// in history and continue-as-new carries it on. Model calls refer to the definitions by digest (the activity reads
// them from its cache or the `toolDefinitions` query); tool calls are scheduled with the policies. A replay,
// another worker or a later turn sees the same, and it is stored once, not in every call.
import { patched } from '@temporalio/workflow';
import { mayBeMcpTool } from '../core/tool-names.js';
import { scheduleDescribeTools } from './proxies.js';
import type { AgentRun } from './run.js';

/** Patch id: every run with tools asks for their call policies when it starts (before, only runs naming MCP tools
 * described them, and every tool call had the same 5-minute timeout). Runs recorded before it replay as they ran:
 * no policies, the old options. */
export const TOOL_CALL_POLICIES = 'tool-call-policies';

/** Recorded before the first model call of a job with tools; carried from its first run (continue-as-new, resume).
 * Runs from before the patch describe only MCP tools, when they name some (`<server>__<tool>`, `<server>__*`). */
export async function recordToolDefinitions(run: AgentRun): Promise<void> {
  const { state, settings } = run;
  if (state.toolPolicies || settings.tools.length === 0) return;
  const mcpNames = settings.tools.filter(mayBeMcpTool);
  if (patched(TOOL_CALL_POLICIES)) {
    const { policies, ...recorded } = await scheduleDescribeTools(settings.tools, mcpNames, true, settings.heartbeatTimeoutMs);
    // Definitions a job recorded before (an earlier run of it, on older code) stay the ones its calls use.
    if (mcpNames.length > 0) state.recordedTools ??= recorded;
    state.toolPolicies = policies ?? {};
    return;
  }
  if (state.recordedTools || mcpNames.length === 0 || !patched('mcp-tool-definitions')) return;
  state.recordedTools = await scheduleDescribeTools(settings.tools, mcpNames, false, settings.heartbeatTimeoutMs);
}
