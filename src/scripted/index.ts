// The scripted model: a local Messages API stand-in that answers from a script (tests, offline demos).
export { startScriptedModel } from './server.js';
export type { RecordedRequest, ScriptedModel, ScriptedModelOptions } from './server.js';
export type { RecordedBatch, RecordedBatchRequest } from './batches.js';
export {
  apiError,
  failTimes,
  isErrorTurn,
  isFailTimesTurn,
  isScriptsByAgent,
  reply,
  scriptTurnProblem,
  serverToolUse,
  text,
  thinking,
  toolUse,
  validateScriptTurns,
  webSearchResult,
} from './script.js';
export type {
  AgentScript,
  ErrorTurn,
  FailTimesTurn,
  MessagesRequestBody,
  ReplyTurn,
  Script,
  ScriptBlock,
  ScriptFunction,
  ScriptTurn,
  ScriptsByAgent,
  ScriptUsage,
} from './script.js';
export { firstLargeNumber, franceDemoScript, loadScriptFile } from './demo.js';
export { checkRequest, ReturnedContent, turnIndexOf } from './conformance.js';
