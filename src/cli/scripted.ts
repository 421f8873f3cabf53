// `--scripted`: the offline model. A local server speaking the Messages API answers from a script, reached
// through the real Anthropic SDK: AGENT_SCRIPT=<file.json> when set, else the config file's `scriptedModel` (an
// example's stand-in for Claude), else the built-in France demo.
import type { ModelConnection } from '../activities/index.js';
import type { AgentConfig } from '../config/types.js';
import { nearestName } from '../core/suggest.js';
import { franceDemoScript, isScriptsByAgent, loadScriptFile, startScriptedModel, type AgentScript, type Script, type ScriptTurn } from '../scripted/index.js';
import { UsageError } from '../core/args.js';
import { logLine } from './log.js';

export interface ScriptChoice {
  script: Script;
  /** Sub-agents' own scripts, told apart by their system prompts (the config's `scriptedModel.agents`). */
  agents?: Record<string, AgentScript>;
  /** Where the script comes from, for the notice that the model is scripted. */
  source: string;
}

/** The script to answer from, read and checked before anything starts: a bad AGENT_SCRIPT is exit 2. */
export async function loadScript(config: AgentConfig = {}): Promise<ScriptChoice> {
  const file = process.env.AGENT_SCRIPT;
  if (!file) {
    const source = "the config file's scriptedModel";
    const scripted = config.scriptedModel;
    if (isScriptsByAgent(scripted)) return { script: scripted.script, agents: agentScripts(scripted.agents, config), source };
    return scripted ? { script: scripted, source } : { script: franceDemoScript, source: 'the built-in France demo script' };
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

/** `scriptedModel.agents` with the system prompt each agent's requests carry, the one thing that tells them apart (a
 * request names no agent): each must be an agent of the config's, with a system prompt of its own. */
function agentScripts(scripts: Record<string, Script>, config: AgentConfig): Record<string, AgentScript> {
  const defined = config.agents ?? {};
  const agents: Record<string, AgentScript> = {};
  for (const [name, script] of Object.entries(scripts)) {
    const def = Object.hasOwn(defined, name) ? defined[name] : undefined;
    if (!def) {
      const guess = nearestName(name, Object.keys(defined));
      throw new UsageError(
        `scriptedModel.agents: no agent "${name}" in the config's agents${guess ? ` (did you mean ${guess}?)` : ''} (agents: ${Object.keys(defined).join(', ') || 'none'})`,
      );
    }
    if (!def.system) {
      throw new UsageError(
        `scriptedModel.agents.${name}: the agent "${name}" has no system prompt: the scripted model tells an agent's requests apart by it (give the agent a "system")`,
      );
    }
    const twin = Object.entries(agents).find(([, other]) => other.system === def.system);
    if (twin) throw new UsageError(`scriptedModel.agents: the agents "${twin[0]}" and "${name}" have the same system prompt: the scripted model cannot tell them apart`);
    agents[name] = { system: def.system, script };
  }
  return agents;
}

export interface OpenScriptedModel {
  connection: ModelConnection;
  close(): Promise<void>;
}

export async function openScriptedModel(choice: ScriptChoice): Promise<OpenScriptedModel> {
  const server = await startScriptedModel({ script: choice.script, agents: choice.agents, name: choice.source });
  logLine(`using the SCRIPTED model at ${server.url} (offline, no API key): replies come from ${choice.source}, not from Claude`);
  return { connection: { apiKey: 'scripted-model-no-key', baseURL: server.url }, close: () => server.close() };
}
