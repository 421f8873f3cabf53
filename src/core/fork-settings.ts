// The settings a fork's flags (or an HTTP fork request's fields) replace: only those given; the others stay the
// source run's. `fork` (commands/fork.ts) and `POST /v1/runs/{id}/fork` (src/serve) share it.
import { RUN_SETTINGS } from './run-settings.js';
import { isAgentTool } from './sub-agents.js';
import type { AgentSettings, ServerToolSettings } from './types.js';

/** The settings `given` names (by the table's names, as `valuesFromFlags` or a request body has them), as `full` (the
 * given ones with defaults filled and checked) has them; `agents` are tools. The start's options (priority) are not
 * settings. With the `source`'s settings, `agents` given without `tools` replace its sub-agents only: its other tools
 * stay (`full` then holds every tool of the catalog, a new run's default). */
export function settingsGivenBy(given: Record<string, unknown>, full: AgentSettings, source?: Pick<AgentSettings, 'tools'>): Partial<AgentSettings> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(given)) {
    const field = name === 'agents' ? 'tools' : name;
    if (field in RUN_SETTINGS && given[name] !== undefined) out[field] = full[field as keyof AgentSettings];
  }
  if (source && given.agents !== undefined && given.tools === undefined) {
    out.tools = [...source.tools.filter((t) => !isAgentTool(t)), ...full.tools.filter(isAgentTool)];
  }
  return out as Partial<AgentSettings>;
}

/** The source run's settings as the values a fork's given ones go over before they are checked, so that each is
 * checked against the source's (a thinking budget under its max output tokens, a compaction threshold within its
 * model's window), not against the defaults a new run would get. Its tools and the ones it approves are left out: a
 * fork keeps them unless it names its own, which are checked against the tools this process knows (the source's may
 * be tools of another config, or of MCP servers this process does not reach). */
export function sourceSettingValues(source: AgentSettings): Record<string, unknown> {
  const { tools: _tools, approve: _approve, ...values } = source;
  return values;
}

/** The values a fork's given ones are checked as: over the source's (sourceSettingValues), and for the server tools,
 * field by field (`--allowed-domains` alone keeps the source's server tools; `--server-tools` alone keeps its domains),
 * the source's fields that no longer apply left out (a domain list the given one replaces, web_search's max uses
 * without web_search). */
export function forkValues(source: AgentSettings, given: Record<string, unknown>): Record<string, unknown> {
  const values = { ...sourceSettingValues(source), ...given };
  const mine = given.serverTools as ServerToolSettings | undefined;
  if (mine && source.serverTools) {
    const merged: Partial<ServerToolSettings> = { ...source.serverTools, ...mine };
    if (mine.allowedDomains !== undefined) delete merged.blockedDomains;
    if (mine.blockedDomains !== undefined) delete merged.allowedDomains;
    const tools = merged.tools ?? [];
    if (mine.webSearchMaxUses === undefined && !tools.includes('web_search')) delete merged.webSearchMaxUses;
    if (!tools.some((t) => t === 'web_search' || t === 'web_fetch')) {
      if (mine.allowedDomains === undefined) delete merged.allowedDomains;
      if (mine.blockedDomains === undefined) delete merged.blockedDomains;
    }
    values.serverTools = merged;
  }
  return values;
}
