// The settings a fork's flags (or an HTTP fork request's fields) replace: only those given; the others stay the
// source run's. `fork` (commands/fork.ts) and `POST /v1/runs/{id}/fork` (src/serve) share it.
import type { AgentSettings } from './types.js';

/** The settings fields the given flags set (the rest stay the source's). */
const FIELDS_OF_FLAG: Record<string, Array<keyof AgentSettings>> = {
  model: ['model'],
  'max-steps': ['maxSteps'],
  'max-output-tokens': ['maxOutputTokens'],
  system: ['system'],
  tools: ['tools'],
  agents: ['tools'],
  'budget-tokens': ['budgetTokens'],
  'budget-usd': ['budgetUsd'],
  prices: ['prices'],
  deadline: ['deadlineMs'],
  'summary-on': ['summaryOn'],
  'output-schema': ['outputSchema'],
  effort: ['effort'],
  thinking: ['thinkingBudget'],
  'no-prompt-cache': ['promptCaching'],
  approve: ['approve'],
  chat: ['chat'],
  'idle-timeout': ['idleTimeoutMs'],
  'heartbeat-timeout': ['heartbeatTimeoutMs'],
  'tool-timeout': ['toolTimeoutMs'],
  'local-model-calls': ['localModelCalls'],
  'continue-as-new-after': ['continueAsNewAfterSteps'],
  'max-tool-output': ['maxToolOutputChars'],
  'max-agent-depth': ['maxAgentDepth'],
  'context-clear-at': ['contextClearAtTokens'],
  'compact-at': ['compactAt'],
  'no-compaction': ['compaction'],
  webhook: ['webhooks'],
  'server-tools': ['serverTools'],
  'web-search-max-uses': ['serverTools'],
  'allowed-domains': ['serverTools'],
  'blocked-domains': ['serverTools'],
};

export function settingsGivenBy(flags: Record<string, unknown>, full: AgentSettings): Partial<AgentSettings> {
  const given: Partial<AgentSettings> = {};
  for (const [flag, fields] of Object.entries(FIELDS_OF_FLAG)) {
    if (flags[flag] === undefined) continue;
    for (const field of fields) (given as Record<string, unknown>)[field] = full[field];
  }
  return given;
}
