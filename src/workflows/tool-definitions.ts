// The MCP tool definitions of a run are fixed when it starts: one describeTools activity asks a worker for
// them, its result is recorded in history, and continue-as-new carries it on. Model calls then refer to it
// by digest (the activity reads the definitions from its cache or the `toolDefinitions` query), so a replay,
// another worker or a later turn sees the same definitions, and they are stored once, not in every call.
import { patched } from '@temporalio/workflow';
import { mayBeMcpTool } from '../core/tool-names.js';
import { scheduleDescribeTools } from './proxies.js';
import type { AgentRun } from './run.js';

/** Recorded before the first model call of a job whose `tools` name MCP tools (`<server>__<tool>` or
 * `<server>__*`). Runs without such names issue no command here, so their histories are unchanged. */
export async function recordToolDefinitions(run: AgentRun): Promise<void> {
  const { state, settings } = run;
  if (state.recordedTools) return; // carried from the job's first run (continue-as-new, resume)
  const mcpNames = settings.tools.filter(mayBeMcpTool);
  if (mcpNames.length === 0 || !patched('mcp-tool-definitions')) return;
  state.recordedTools = await scheduleDescribeTools(settings.tools, mcpNames, settings.heartbeatTimeoutMs);
}
