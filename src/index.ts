// The library's public API: define tools, run a worker with them, start runs and read their results.
// An explicit list: internals stay internal. What tests need (the scripted model, the dev server, the web_search
// stub) is `durable-agent/testing`; the codec, key ring and codec server are `durable-agent/encryption`; the agent
// as a child of your own workflow is `durable-agent/workflow`.
export { createAgentWorker, modelConnectionFromEnv, type AgentWorker, type AgentWorkerOptions } from './worker/worker.js';
export { AgentPlugin, type AgentPluginOptions } from './worker/plugin.js';
export { workerDataConverter } from './worker/key-queues.js';
export type { TranscriptStore } from './activities/transcript-store.js';
export type { RecordedToolsStore } from './activities/recorded-tools.js';
export type { ModelSettingsStore } from './activities/model-settings.js';
export type { McpTools } from './mcp/index.js';
export { serve, type ApiServer, type ApiTokens, type ServeOptions } from './serve/index.js';
export { signWebhook, verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions } from './webhooks/signature.js';
export { WEBHOOK_EVENT_TYPES, WEBHOOK_HEADERS, WEBHOOK_SECRET_VARIABLE } from './core/webhooks.js';
export { agentWorkerSizing, type Pollers, type WorkerSizing } from './worker/worker-sizing.js';
// Traces and metrics (docs/observability.md).
export { agentTracingFromEnv, createTracing, type AgentTracing } from './observability/tracing.js';
export { AgentMetrics } from './observability/metrics.js';
export { serveMetrics, type MetricsServer, type MetricsServerOptions } from './observability/metrics-server.js';
export { OtelConfigError, type TracingConfig } from './core/otel-config.js';
export {
  AGENT_WORKFLOW,
  answerElicitation,
  approveToolCall,
  cancelRun,
  checkAgentSettings,
  InvalidSettingsError,
  settingsProblem,
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
export { connectClient, resolveTemporalTarget, type TemporalTarget } from './client/connection.js';
export { agentDataConverter, EncryptionKeyError, ENCRYPTION_KEYS_VARIABLE } from './codec/index.js';
export { createToolRegistry, type ToolRegistry } from './tools/registry.js';
export { calculator } from './tools/calculator.js';
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
export { IDEMPOTENCY_META_KEY, FileMcpTokenStore, MemoryMcpTokenStore, McpTokenStoreError, McpLoginRequired } from './mcp/index.js';
export type { McpAuthRecord, McpTokenStore } from './mcp/index.js';
export { AGENT_WORKER_SIZING, DEFAULTS, MODEL_CALL_OPTIONS, TOOL_CALL_OPTIONS } from './core/policies.js';
export type {
  AgentInput,
  AgentResult,
  AgentSettings,
  AgentStatusView,
  ApprovalAck,
  ChildRunRecord,
  ElicitationAck,
  ElicitationQuestion,
  ElicitationReply,
  GuardName,
  ModelCallProgress,
  RunStatus,
  SubAgentDefinition,
  ToolCallPolicy,
  ToolCallProgress,
  ToolCallView,
  ToolOutcome,
  Usage,
  WebhookEvent,
  WebhookEventType,
} from './core/types.js';
export type { ModelConnection } from './activities/index.js';
// The type of a config file's `scriptedModel` (the functions that build scripts are in durable-agent/testing).
export type { Script, ScriptsByAgent, ScriptTurn } from './scripted/script.js';
export { agentInput } from './core/settings.js';
export { AGENT_TOOL_PREFIX, DEFAULT_MAX_AGENT_DEPTH } from './core/sub-agents.js';
