// What a run fixes about its tools when it starts: one describeTools activity asks a worker for the MCP tool
// definitions it will use and the call policies of its tools (timeout, heartbeat, retry); its result is recorded
// in history and continue-as-new carries it on. Model calls refer to the definitions by digest (the activity reads
// them from its cache or the `toolDefinitions` query); tool calls are scheduled with the policies. A replay,
// another worker or a later turn sees the same, and it is stored once, not in every call.
import { agentsIn } from '../core/sub-agents.js';
import { mayBeMcpTool } from '../core/tool-names.js';
import { scheduleDescribeTools } from './proxies.js';
import type { RunContext } from './run-context.js';

/** Recorded before the first model call of a job with tools; carried from its first run (continue-as-new, resume):
 * the call policies of its tools, the definitions of the MCP tools it names, and, for a run whose tools name
 * sub-agents (`agent__<name>`), their definitions (the describeTools activity answers them from the worker's
 * `agents`; each `agent__*` call is then a child run, src/workflows/sub-agents.ts).
 *
 * Why sub-agents are recorded at start rather than carried in the settings: they are defined where tools are, on the
 * worker (config file, AgentPlugin), and a run names the ones it may use in `tools` as it names tools; recording what
 * the worker answered puts the definitions in the parent's history once (each child's input then holds only its own
 * settings; no model call's input holds any), and hands their tool definitions to model calls through the
 * recorded-tools digest the model activity already reads. A replay, another worker, continue-as-new see the same. */
export async function recordToolDefinitions(run: RunContext): Promise<void> {
  const { state, settings } = run;
  if (state.toolPolicies || settings.tools.length === 0) return;
  const mcpNames = settings.tools.filter(mayBeMcpTool);
  const agentNames = agentsIn(settings.tools);
  const delegates = agentNames.length > 0;
  // Without MCP tools the answer is the worker's own configuration: a local activity, in the workflow task (no
  // dispatch, no workflow task of its own). Listing an MCP server's tools is I/O, and stays an activity.
  const local = mcpNames.length === 0;
  const described = await scheduleDescribeTools(settings.tools, mcpNames, settings.heartbeatTimeoutMs, delegates ? agentNames : undefined, local);
  const { policies, agents, ...recorded } = described;
  if (mcpNames.length > 0 || delegates) state.recordedTools ??= recorded;
  if (delegates) state.agents = agents ?? {};
  state.toolPolicies = policies ?? {};
}
