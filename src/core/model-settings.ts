// The settings of a run that every model call repeats (model, system prompt, tool names, output schema, server
// tools, effort, thinking, ...): stored once. They are in the workflow input already; each model call's input names them by a
// digest of their content, and the model activity reads them from the worker's cache (filled through the
// transcript sink) or, on a miss, with the `modelSettings` query. Pure: the workflow computes the digest.
import type { AgentSettings, ModelCallInput, ModelCallSettingsField, RunState } from './durable-state.js';
import { DEFAULTS } from './policies.js';
import { sha256Hex } from './sha256.js';

/** The part of a model call's input named by `ModelCallByDigest.settings`. */
export type ModelCallSettings = Pick<ModelCallInput, ModelCallSettingsField>;

/** A run's model-call settings and the digest they are named by. */
export interface DigestedSettings {
  digest: string;
  settings: ModelCallSettings;
}

/** The model-call settings of a run, absent fields left out (so an unset field and a missing one digest alike). */
export function modelCallSettings(s: AgentSettings, state?: Pick<RunState, 'refused' | 'clientSummary'>): ModelCallSettings {
  const out: ModelCallSettings = { model: s.model, maxOutputTokens: s.maxOutputTokens, tools: s.tools, promptCaching: s.promptCaching };
  for (const key of ['system', 'effort', 'thinkingBudget', 'outputSchema', 'serverTools'] as const) {
    if (s[key] !== undefined) Object.assign(out, { [key]: s[key] });
  }
  const compactAt = compactAtOf(s);
  // Where the endpoint refused server-side compaction, the run compacts by itself (client-side).
  if (compactAt !== undefined && !state?.refused?.includes('compaction')) out.compactAt = compactAt;
  if (state?.clientSummary) out.clientSummary = state.clientSummary;
  return out;
}

/** The compaction trigger of a run (on by default), or undefined with `compaction: false`. */
export function compactAtOf(s: Pick<AgentSettings, 'compactAt' | 'compaction'>): number | undefined {
  return s.compaction === false ? undefined : (s.compactAt ?? DEFAULTS.compactAtTokens);
}

/** The settings with their digest: a hash of their JSON, so the same settings have the same digest on every
 * worker and a cache keyed by it can never serve other settings than the ones named. */
export function digestSettings(settings: ModelCallSettings): DigestedSettings {
  return { digest: sha256Hex(JSON.stringify(settings)).slice(0, 32), settings };
}
