// The activities a worker registers, built from their dependencies (the worker assembles them).
import type { McpTools } from '../mcp/tools.js';
import type { OfferedTools, SubAgentDefinition } from '../core/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { createDescribeTools } from './describe-tools.js';
import { createBatchActivities } from './batch.js';
import type { ModelBatcher } from './batcher.js';
import { createCallModel, type ModelConnection } from './model.js';
import type { ModelSettingsStore } from './model-settings.js';
import type { RecordedToolsStore } from './recorded-tools.js';
import type { LocalModelCalls } from './local-model-calls.js';
import { createRunTool } from './tool.js';
import { createDeliverWebhook } from './webhook.js';
import type { TranscriptStore } from './transcript-store.js';
import type { ActivityTelemetry } from '../observability/activity-telemetry.js';

export type { ModelConnection } from './model.js';
export { TranscriptStore, type ReadTranscriptPage } from './transcript-store.js';
export { RecordedToolsStore, type ReadRecordedTools } from './recorded-tools.js';
export { ModelSettingsStore, type ReadModelSettings } from './model-settings.js';

export interface ActivityDeps {
  /** Where model calls read their messages: the worker's cache, else a query to the workflow. */
  transcripts: TranscriptStore;
  connection: ModelConnection;
  tools: ToolRegistry;
  /** The MCP servers' tools (also in `tools`), and where model calls find the definitions a run recorded. */
  mcp?: McpTools;
  recordedTools: RecordedToolsStore;
  /** Where model calls find the settings runs name by digest. */
  modelSettings: ModelSettingsStore;
  /** The sub-agents this worker defines (recorded by the runs that delegate to them). */
  agents?: Record<string, SubAgentDefinition>;
  /** Whether the worker polls with Worker Versioning on (`workerDeploymentOptions.useWorkerVersioning`). */
  usesVersioning?: () => boolean;
  /** Spans and metrics of model and tool calls. */
  telemetry?: ActivityTelemetry;
  /** Whether the worker of a queue is stopping, for its local model calls (see ModelCallDeps). */
  localModelCalls?: (namespace: string, taskQueue: string) => LocalModelCalls | undefined;
  /** The worker's batcher, for runs in batch mode (`modelCalls: 'batch'`). */
  batcher: ModelBatcher;
}

export function createActivities(deps: ActivityDeps) {
  const mcpServers = () => deps.mcp?.servers() ?? [];
  return {
    callModel: createCallModel({ ...deps, mcpServers }),
    ...createBatchActivities({ ...deps, mcpServers }),
    runTool: createRunTool({ tools: deps.tools, telemetry: deps.telemetry }),
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
      };
    },
  };
}
