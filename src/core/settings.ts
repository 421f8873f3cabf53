// The settings of a run with the documented defaults filled in: pure, so tests and the CLI share one source.
import { DEFAULTS } from './policies.js';
import type { AgentInput, AgentSettings } from './types.js';

/** The default settings, with `overrides` on top; an override whose value is `undefined` leaves the default. */
export function defaultSettings(overrides: Partial<AgentSettings> = {}): AgentSettings {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return {
    model: DEFAULTS.model,
    maxSteps: DEFAULTS.maxSteps,
    maxOutputTokens: DEFAULTS.maxOutputTokens,
    tools: [],
    summaryOn: [...DEFAULTS.summaryOn],
    promptCaching: DEFAULTS.promptCaching,
    ...defined,
  };
}

/** The input of an agent run: `task`, and `settings` over the documented defaults. The run writes its Agent* search
 * attributes (status, steps, tokens, cost, stop reason, guard, model) unless `searchAttributes: false`: register
 * them on your namespace first (`durable-agent server` does; see docs/inspecting.md), or pass false. */
export function agentInput(task: string, settings: Partial<AgentSettings> = {}): AgentInput {
  return { task, settings: defaultSettings({ searchAttributes: true, ...settings }) };
}
