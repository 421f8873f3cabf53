// The library's public API: define tools, run a worker with them, start runs and read their results.
// An explicit list: internals stay internal.
export { createAgentWorker, modelConnectionFromEnv, type AgentWorker, type AgentWorkerOptions } from './worker.js';
export { AgentPlugin, type AgentPluginOptions } from './plugin.js';
export { workerDataConverter } from './key-queues.js';
export { agentWorkerSizing, type Pollers, type WorkerSizing } from './worker-sizing.js';
export {
  AGENT_WORKFLOW,
  approveToolCall,
  cancelRun,
  closeChatRun,
  completeToolCall,
  defaultSettings,
  denyToolCall,
  getAgentResult,
  getStatus,
  getTranscript,
  listRuns,
  modelCallsInFlight,
  newWorkflowId,
  resumeAgent,
  RunNotResumableError,
  sendFollowUp,
  startAgent,
  toolCallsInFlight,
  ToolCompletionError,
  type CompletedToolCall,
  type ModelCallInFlight,
  type ToolCallInFlight,
  type ResumeOptions,
  type RunSummary,
  type StartAgentOptions,
  type StartedAgent,
  type StatusReport,
} from './client/index.js';
export { defineConfig, type AgentConfig, type SubAgentConfig, type McpCallPolicy, type McpHttpServerConfig, type McpServerConfig, type McpStdioServerConfig } from './config/types.js';
export { ConfigError, loadConfig, toolsWithConfig, type LoadedConfig } from './config/load.js';
export { connectClient, resolveTemporalTarget, type TemporalTarget } from './client/connection.js';
export {
  agentDataConverter,
  EncryptionCodec,
  EncryptionKeyError,
  ENCRYPTION_KEYS_VARIABLE,
  FAILURE_CONVERTER_PATH,
  parseKeyRing,
} from './codec/index.js';
export { startCodecServer, type CodecServer, type CodecServerOptions } from './codec/codec-server.js';
export { builtinTools, createToolRegistry, type ToolRegistry } from './tools/registry.js';
export { calculator } from './tools/calculator.js';
export { webSearch } from './tools/web-search.js';
export {
  defineTool,
  ToolError,
  type AgentTool,
  type AnyAgentTool,
  type Duration,
  type InputOf,
  type ObjectJsonSchema,
  type ToolCallPolicyOptions,
  type ToolContext,
  type ToolInputSchema,
  type ToolOutput,
  type ToolResultContentBlock,
  type TypedToolDefinition,
} from './tools/types.js';
export { toolContext, type LocalToolContext } from './tools/context.js';
export { IDEMPOTENCY_META_KEY } from './mcp/index.js';
export { startDevServer, findTemporalCli, type DevServer } from './devserver/index.js';
export { startScriptedModel, franceDemoScript, type Script, type ScriptTurn } from './scripted/index.js';
export { AGENT_WORKER_SIZING, DEFAULT_MODEL_CALL_SLOTS, DEFAULTS, MODEL_CALL_OPTIONS, TOOL_CALL_OPTIONS } from './core/policies.js';
export type {
  AgentInput,
  AgentResult,
  AgentSettings,
  ApprovalAck,
  ChildRunRecord,
  GuardName,
  RunStatus,
  SubAgentDefinition,
  ToolCallPolicy,
  ToolCallProgress,
  ToolOutcome,
  Usage,
} from './core/types.js';
export type { ModelConnection } from './activities/index.js';
export { agentInput } from './core/settings.js';
export { AGENT_TOOL_PREFIX, DEFAULT_MAX_AGENT_DEPTH } from './core/sub-agents.js';
