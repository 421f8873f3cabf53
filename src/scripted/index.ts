// The scripted model: a local Messages API stand-in that answers from a script (tests, offline demos).
export { startScriptedModel, type RecordedRequest, type ScriptedModel, type ScriptedModelOptions } from './server.js';
export {
  apiError,
  failTimes,
  isScriptsByAgent,
  reply,
  scriptTurnProblem,
  serverToolUse,
  text,
  thinking,
  toolUse,
  webSearchResult,
  type AgentScript,
  type MessagesRequestBody,
  type ReplyTurn,
  type Script,
  type ScriptFunction,
  type ScriptTurn,
} from './script.js';
export { firstLargeNumber, franceDemoScript, loadScriptFile } from './demo.js';
