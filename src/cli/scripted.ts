// `--scripted`: the offline model. A local server speaking the Messages API answers from a script, reached
// through the real Anthropic SDK: AGENT_SCRIPT=<file.json> when set, else the config file's `scriptedModel` (an
// example's stand-in for Claude), else the built-in France demo.
import type { ModelConnection } from '../activities/index.js';
import type { AgentConfig } from '../config/types.js';
import { franceDemoScript, loadScriptFile, startScriptedModel } from '../scripted/index.js';
import { logLine } from './log.js';

export interface OpenScriptedModel {
  connection: ModelConnection;
  close(): Promise<void>;
}

export async function openScriptedModel(config: AgentConfig = {}): Promise<OpenScriptedModel> {
  const file = process.env.AGENT_SCRIPT;
  const script = file ? await loadScriptFile(file) : (config.scriptedModel ?? franceDemoScript);
  const source = file
    ? `the script ${file}`
    : config.scriptedModel
      ? "the config file's scriptedModel"
      : 'the built-in France demo script';
  const server = await startScriptedModel({ script });
  logLine(`using the SCRIPTED model at ${server.url} (offline, no API key): replies come from ${source}, not from Claude`);
  return { connection: { apiKey: 'scripted-model-no-key', baseURL: server.url }, close: () => server.close() };
}
