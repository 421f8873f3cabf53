// What a run fixes about its tools when it starts: one describeTools activity asks a worker for the MCP tool
// definitions it will use and the call policies of its tools (timeout, heartbeat, retry); its result is recorded
// in history and continue-as-new carries it on. Model calls refer to the definitions by digest (the activity reads
// them from its cache or the `toolDefinitions` query); tool calls are scheduled with the policies. A replay,
// another worker or a later turn sees the same, and it is stored once, not in every call.
import { agentsIn } from '../core/sub-agents.js';
import { mayBeMcpTool } from '../core/tool-names.js';
import { scheduleDescribeTools } from './proxies.js';
import type { AgentRun } from './run.js';
import { takesChangesOf202612, takesPatch } from './patches.js';

/** Patch id: every run with tools asks for their call policies when it starts (before, only runs naming MCP tools
 * described them, and every tool call had the same 5-minute timeout). Runs recorded before it replay as they ran:
 * no policies, the old options. */
export const TOOL_CALL_POLICIES = 'tool-call-policies';

/** Patch id: a run whose tools name sub-agents (`agent__<name>`) records their definitions with its tools' (the
 * describeTools activity answers them from the worker's `agents`), and runs each `agent__*` call as a child run
 * (src/workflows/sub-agents.ts). Asked only by runs that name agents, so no run recorded before it asks.
 *
 * Why recorded at start rather than carried in the settings: sub-agents are defined where tools are, on the worker
 * (config file, AgentPlugin), and a run names the ones it may use in `tools` as it names tools; recording what the
 * worker answered puts the definitions in the parent's history once (each child's input then holds only its own
 * settings; no model call's input holds any), and hands their tool definitions to model calls through the recorded-tools digest the model activity already
 * reads, so the model call path is unchanged. A replay, another worker, continue-as-new see the same definitions. */
export const SUB_AGENTS = 'sub-agents';

/** Patch id: a run naming MCP tools records their definitions when it starts (before, every model call listed them). */
const MCP_TOOL_DEFINITIONS = 'mcp-tool-definitions';

/** Recorded before the first model call of a job with tools; carried from its first run (continue-as-new, resume).
 * Runs from before the patch describe only MCP tools, when they name some (`<server>__<tool>`, `<server>__*`). */
export async function recordToolDefinitions(run: AgentRun): Promise<void> {
  const { state, settings } = run;
  if (state.toolPolicies || settings.tools.length === 0) return;
  const mcpNames = settings.tools.filter(mayBeMcpTool);
  if (takesPatch(TOOL_CALL_POLICIES)) {
    // Asked only by runs that delegate: a run without agents issues the commands it issued before sub-agents.
    const agentNames = agentsIn(settings.tools);
    const delegates = agentNames.length > 0 && takesPatch(SUB_AGENTS);
    // Without MCP tools the answer is the worker's own configuration: a local activity, in the workflow task (no
    // dispatch, no workflow task of its own). Listing an MCP server's tools is I/O, and stays an activity.
    const local = mcpNames.length === 0 && takesChangesOf202612();
    const described = await scheduleDescribeTools(settings.tools, mcpNames, true, settings.heartbeatTimeoutMs, delegates ? agentNames : undefined, local);
    const { policies, agents, ...recorded } = described;
    // Definitions a job recorded before (an earlier run of it, on older code) stay the ones its calls use.
    if (mcpNames.length > 0 || delegates) state.recordedTools ??= recorded;
    if (delegates) state.agents = agents ?? {};
    state.toolPolicies = policies ?? {};
    return;
  }
  if (state.recordedTools || mcpNames.length === 0 || !takesPatch(MCP_TOOL_DEFINITIONS)) return;
  state.recordedTools = await scheduleDescribeTools(settings.tools, mcpNames, false, settings.heartbeatTimeoutMs);
}
