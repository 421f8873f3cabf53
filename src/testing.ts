// `durable-agent/testing`: what a test of an agent needs and a production worker does not. The scripted model (a
// local Messages API that answers from a script, reached through the real Anthropic SDK) and the Temporal dev
// server (the official Temporal CLI, found or installed and cached). A context to call a tool with in a unit test.
//
//   import { startScriptedModel, reply, text, toolUse } from 'durable-agent/testing';
//   const model = await startScriptedModel({ script: [reply([toolUse('calculator', { expression: '6*7' })]), reply([text('42')])] });
//   // createAgentWorker({ ..., model: { apiKey: 'test', baseURL: model.url } })
export { startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedModelOptions } from './scripted/server.js';
export type { RecordedBatch, RecordedBatchRequest } from './scripted/batches.js';
export {
  apiError,
  failTimes,
  reply,
  serverToolUse,
  text,
  thinking,
  toolUse,
  webSearchResult,
  type AgentScript,
  type ErrorTurn,
  type FailTimesTurn,
  type ReplyTurn,
  type Script,
  type ScriptBlock,
  type ScriptRedactedThinkingBlock,
  type ScriptServerToolResultBlock,
  type ScriptServerToolUseBlock,
  type ScriptTextBlock,
  type ScriptThinkingBlock,
  type ScriptToolUseBlock,
  type ScriptFunction,
  type ScriptTurn,
  type ScriptsByAgent,
  type ScriptUsage,
} from './scripted/script.js';
export { franceDemoScript } from './scripted/demo.js';
export { webSearch } from './tools/web-search.js';
export { builtinTools } from './tools/registry.js';
// A tool's `execute` called in a unit test, outside a worker: its context, with the progress it reports kept.
export { toolContext, type LocalToolContext } from './tools/context.js';
export type { ToolContext } from './tools/types.js';
export { findTemporalCli, TEMPORAL_CLI_VERSION, type FindTemporalOptions } from './devserver/find-temporal.js';
export { startDevServer, type DevServer, type DevServerOptions } from './devserver/dev-server.js';
// Recorded runs as a regression suite (docs/fork-and-replay.md): `expect((await replayRuns(client, { query, tools })).diverged).toBe(false)`.
export { replayRuns, ReplayInputError, type ReplayReport, type ReplayRunsOptions, type RunReplay, type StepCheck, type ToolCheck } from './client/replay-runs.js';
