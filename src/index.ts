// The library's public API: define tools, run a worker with them, start runs and read their results.
// An explicit list: internals stay internal.
export { createAgentWorker, modelConnectionFromEnv, type AgentWorker, type AgentWorkerOptions } from './worker.js';
export {
  AGENT_WORKFLOW,
  defaultSettings,
  getAgentResult,
  newWorkflowId,
  startAgent,
  type StartAgentOptions,
  type StartedAgent,
} from './client/index.js';
export { connectClient, resolveTemporalTarget, type TemporalTarget } from './client/connection.js';
export { builtinTools, createToolRegistry, type ToolRegistry } from './tools/registry.js';
export { calculator } from './tools/calculator.js';
export { webSearch } from './tools/web-search.js';
export { defineTool, ToolError, type AgentTool, type ToolContext, type ToolInputSchema } from './tools/types.js';
export { startDevServer, findTemporalCli, type DevServer } from './devserver/index.js';
export { startScriptedModel, franceDemoScript, type Script, type ScriptTurn } from './scripted/index.js';
export { DEFAULTS, MODEL_CALL_OPTIONS, TOOL_CALL_OPTIONS } from './core/policies.js';
export type {
  AgentInput,
  AgentResult,
  AgentSettings,
  GuardName,
  RunStatus,
  Usage,
} from './core/types.js';
export type { ModelConnection } from './activities/index.js';
