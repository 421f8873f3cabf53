// `--scripted`: the offline model. A local server speaking the Messages API answers from a script
// (AGENT_SCRIPT=<file.json>, else the built-in France demo), reached through the real Anthropic SDK.
import type { ModelConnection } from '../activities/index.js';
import { franceDemoScript, loadScriptFile, startScriptedModel } from '../scripted/index.js';
import { logLine } from './log.js';

export interface OpenScriptedModel {
  connection: ModelConnection;
  close(): Promise<void>;
}

export async function openScriptedModel(): Promise<OpenScriptedModel> {
  const file = process.env.AGENT_SCRIPT;
  const script = file ? await loadScriptFile(file) : franceDemoScript;
  const server = await startScriptedModel({ script });
  logLine(
    `using the SCRIPTED model at ${server.url} (offline, no API key): replies come from ${
      file ? `the script ${file}` : 'the built-in France demo script'
    }, not from Claude`,
  );
  return { connection: { apiKey: 'scripted-model-no-key', baseURL: server.url }, close: () => server.close() };
}
