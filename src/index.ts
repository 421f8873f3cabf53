// The library's public API: what a user builds with. Start a run, read it, steer it; define tools; run a worker (or
// add the plugin to your own); the data converter; the HTTP API and its webhooks. At most 30 runtime values
// (test/package/root-exports.test.ts lists them): a new one is a decision, and most belong in a subpath:
//   durable-agent/worker         a worker of your own: sizing, the connection and model read from the environment,
//                                the worker's data converter, the types of what a worker holds
//   durable-agent/observability  traces and metrics (docs/observability.md)
//   durable-agent/mcp            MCP token stores, McpLoginRequired, the idempotency key's name
//   durable-agent/webhooks       signing and verifying webhooks, their event types and headers
//   durable-agent/encryption     the codec, the key ring, the codec server
//   durable-agent/testing        the scripted model, the dev server, toolContext, the web_search stub
//   durable-agent/workflow       the agent as a child of your own workflow
// Types are exported generously (they cost nothing at run time): every type a root function takes or returns is here.

// Start and read.
export { startAgent, getAgentResult, type StartAgentOptions, type StartedAgent } from './client/start.js';
export { getStatus, getTranscript, listRuns, type ListRunsOptions, type RunSummary, type SearchAttributeValues, type ServerRecord, type StatusReport } from './client/inspect.js';
export type { EndedByServer } from './client/history.js';
export type { ModelCallInFlight } from './client/model-progress.js';
export type { ToolCallInFlight } from './client/tool-progress.js';
export type { RunPriority } from './core/priority.js';
export { connectClient, type TemporalTarget } from './client/connection.js';
// Steer.
export { answerElicitation, approveToolCall, cancelRun, closeChatRun, denyToolCall, sendFollowUp } from './client/steer.js';
export { completeToolCall, ToolCompletionError, type CompletedToolCall } from './client/complete-tool.js';
export { resumeAgent, RunNotResumableError, type ResumeOptions } from './client/resume.js';
export { forkRun, type ForkOptions, type ForkedRun } from './client/fork.js';
// Settings.
export { defaultSettings } from './core/settings.js';
export { checkAgentSettings, InvalidSettingsError, type SettingsCheckOptions } from './core/settings-check.js';
export { defineConfig, type AgentConfig, type SubAgentConfig, type McpCallPolicy, type McpHttpServerConfig, type McpServerConfig, type McpStdioServerConfig } from './config/types.js';
// Tools.
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
export { calculator } from './tools/calculator.js';
// The worker, and the plugin for a worker of your own.
export { createAgentWorker, type AgentWorker, type AgentWorkerOptions } from './worker/worker.js';
export { AgentPlugin, type AgentPluginOptions } from './worker/plugin.js';
export type { WorkerSizing, Pollers } from './worker/worker-sizing.js';
export type { WorkerDeployment, Versioning } from './core/versioning.js';
export type { ModelConnection } from './activities/model.js';
// The data converter (client and worker: the same one).
export { agentDataConverter } from './codec/data-converter.js';
// The HTTP API and its webhooks.
export { serve, type ApiServer, type ApiTokens, type ServeOptions } from './serve/index.js';
export type { EventHub } from './serve/events.js';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions } from './webhooks/signature.js';
export type {
  AgentInput,
  AgentResult,
  AgentSettings,
  AgentStatusView,
  ApprovalAck,
  ChildRunRecord,
  ForkOrigin,
  ElicitationAck,
  ElicitationQuestion,
  ElicitationReply,
  GuardName,
  ModelCallProgress,
  RunStatus,
  ServerToolSettings,
  SubAgentDefinition,
  ToolCallPolicy,
  ToolCallProgress,
  ToolCallView,
  ToolOutcome,
  Usage,
  WebhookEvent,
  WebhookEventType,
} from './core/types.js';
// The type of a config file's `scriptedModel` (the functions that build scripts are in durable-agent/testing).
export type { Script, ScriptsByAgent, ScriptTurn } from './scripted/script.js';
