// `--scripted`: the offline model. A local server speaking the Messages API answers from a script, reached
// through the real Anthropic SDK: AGENT_SCRIPT=<file.json> when set, else the config file's `scriptedModel` (an
// example's stand-in for Claude), else the built-in France demo.
import type { ModelConnection } from '../activities/index.js';
import type { AgentConfig } from '../config/types.js';
import { franceDemoScript, loadScriptFile, startScriptedModel, type Script, type ScriptTurn } from '../scripted/index.js';
import { UsageError } from './args.js';
import { logLine } from './log.js';

export interface ScriptChoice {
  script: Script;
  /** Where the script comes from, for the notice that the model is scripted. */
  source: string;
}

/** The script to answer from, read and checked before anything starts: a bad AGENT_SCRIPT is exit 2. */
export async function loadScript(config: AgentConfig = {}): Promise<ScriptChoice> {
  const file = process.env.AGENT_SCRIPT;
  if (!file) {
    return config.scriptedModel
      ? { script: config.scriptedModel, source: "the config file's scriptedModel" }
      : { script: franceDemoScript, source: 'the built-in France demo script' };
  }
  let turns: ScriptTurn[];
  try {
    turns = await loadScriptFile(file);
  } catch (err) {
    throw new UsageError(`AGENT_SCRIPT: ${(err as Error).message}`);
  }
  if (turns.length === 0) {
    throw new UsageError(`AGENT_SCRIPT: ${file} holds no turns: the scripted model would have nothing to answer (give at least one reply)`);
  }
  return { script: turns, source: `the script ${file}` };
}

export interface OpenScriptedModel {
  connection: ModelConnection;
  close(): Promise<void>;
}

export async function openScriptedModel(choice: ScriptChoice): Promise<OpenScriptedModel> {
  const server = await startScriptedModel({ script: choice.script, name: choice.source });
  logLine(`using the SCRIPTED model at ${server.url} (offline, no API key): replies come from ${choice.source}, not from Claude`);
  return { connection: { apiKey: 'scripted-model-no-key', baseURL: server.url }, close: () => server.close() };
}
