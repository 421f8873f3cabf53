// A budget the model can see (the `task-budgets-2026-03-13` beta): with a token budget, each request carries
// `output_config.task_budget` ({ type: 'tokens', total, remaining }) so the model can pace itself and finish
// within it instead of being cut off. The budget guard stays the hard stop. Off where the endpoint refused it.
// Pure.
import type { AgentSettings, RunState, TaskBudget } from './types.js';
import { totalTokens } from './transcript.js';

export const TASK_BUDGET_BETA = 'task-budgets-2026-03-13';

/** The task budget of the next request, or undefined (no --budget-tokens, or the endpoint refused it). */
export function taskBudgetFor(settings: AgentSettings, state: Pick<RunState, 'loop' | 'refused'>): TaskBudget | undefined {
  if (settings.budgetTokens === undefined || state.refused?.includes('task_budget')) return undefined;
  return { total: settings.budgetTokens, remaining: Math.max(0, settings.budgetTokens - totalTokens(state.loop.usage)) };
}
