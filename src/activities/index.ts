// The activities a worker registers, built from their dependencies (the worker assembles them).
import type { McpTools } from '../mcp/tools.js';
import type { OfferedTools, SubAgentDefinition } from '../core/types.js';
import { createDescribeTools } from './describe-tools.js';
import { createBatchActivities, type BatchActivityDeps } from './batch.js';
import { createCallModel, type ModelCallDeps } from './model.js';
import { createRunTool } from './tool.js';
import { createDeliverWebhook } from './webhook.js';

export type { ModelConnection } from './model.js';
export { TranscriptStore, type ReadTranscriptPage } from './transcript-store.js';
export { RecordedToolsStore, type ReadRecordedTools } from './recorded-tools.js';
export { ModelSettingsStore, type ReadModelSettings } from './model-settings.js';

/** What the model activities take (their `mcpServers` are `mcp`'s), and what the others need besides. */
export interface ActivityDeps extends Omit<ModelCallDeps, 'mcpServers'>, Pick<BatchActivityDeps, 'batcher'> {
  /** The MCP servers' tools (also in `tools`), and where model calls find the definitions a run recorded. */
  mcp?: McpTools;
  /** The sub-agents this worker defines (recorded by the runs that delegate to them). */
  agents?: Record<string, SubAgentDefinition>;
  /** The depth limit they were checked against, when the worker was given one. */
  maxAgentDepth?: number;
  /** Whether the worker polls with Worker Versioning on (`workerDeploymentOptions.useWorkerVersioning`). */
  usesVersioning?: () => boolean;
  /** Whether the worker encrypts what it writes (its completion tokens say so: a completion must then be encrypted too). */
  encrypts?: boolean;
}

export function createActivities(deps: ActivityDeps) {
  const mcpServers = () => deps.mcp?.servers() ?? [];
  return {
    callModel: createCallModel({ ...deps, mcpServers }),
    ...createBatchActivities({ ...deps, mcpServers }),
    runTool: createRunTool({ tools: deps.tools, telemetry: deps.telemetry, encrypts: deps.encrypts }),
    describeTools: createDescribeTools({ tools: deps.tools, mcp: deps.mcp, recorded: deps.recordedTools, agents: deps.agents }),
    /** A local activity: whether this worker polls as a Worker Deployment version with versioning on (the workflow
     * cannot tell from its info, which names a version for a worker that only records one). */
    workerUsesVersioning: async (): Promise<boolean> => deps.usesVersioning?.() ?? false,
    /** One signed webhook delivery of a run's event (the secret from this worker's environment). */
    deliverWebhook: createDeliverWebhook(),
    /** What this worker offers (the agentToolCatalog workflow: a CLI's `start` checks its tool names with it). */
    offeredTools: async (): Promise<OfferedTools> => {
      const mcpTools = deps.mcp?.toolNames() ?? [];
      return {
        tools: deps.tools.names().filter((name) => !mcpTools.includes(name)),
        mcpServers: mcpServers(),
        mcpTools,
        agents: Object.keys(deps.agents ?? {}),
        ...(deps.maxAgentDepth !== undefined ? { maxAgentDepth: deps.maxAgentDepth } : {}),
      };
    },
  };
}
