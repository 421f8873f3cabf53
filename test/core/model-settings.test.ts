import { describe, expect, it } from 'vitest';
import { compactAtOf, digestSettings, modelCallSettings } from '../../src/core/model-settings.js';
import { defaultSettings } from '../../src/core/settings.js';
import { taskBudgetFor } from '../../src/core/task-budget.js';
import { initialRunState } from '../../src/core/run-state.js';

describe('model-call settings', () => {
  it('the same settings have the same digest; any change gives another', () => {
    const a = digestSettings(modelCallSettings(defaultSettings({ system: 'Be brief.', tools: ['calculator'] })));
    const b = digestSettings(modelCallSettings(defaultSettings({ system: 'Be brief.', tools: ['calculator'] })));
    expect(a.digest).toMatch(/^[0-9a-f]{32}$/);
    expect(b.digest).toBe(a.digest);
    expect(digestSettings(modelCallSettings(defaultSettings({ system: 'Be briefer.', tools: ['calculator'] }))).digest).not.toBe(a.digest);
  });

  it('compaction is on by default at 150,000 tokens, off with compaction: false, and off once the endpoint refused it', () => {
    expect(compactAtOf(defaultSettings())).toBe(150_000);
    expect(compactAtOf(defaultSettings({ compactAt: 40_000 }))).toBe(40_000);
    expect(compactAtOf(defaultSettings({ compaction: false }))).toBeUndefined();
    expect(modelCallSettings(defaultSettings(), { refused: ['compaction'] })).not.toHaveProperty('compactAt');
  });

  it('a task budget: the total and what is left, none without --budget-tokens or once refused', () => {
    const state = initialRunState({ task: 't', settings: defaultSettings() }, 0);
    state.loop.usage = { input_tokens: 900, output_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    expect(taskBudgetFor(defaultSettings({ budgetTokens: 5_000 }), state)).toEqual({ total: 5_000, remaining: 4_000 });
    expect(taskBudgetFor(defaultSettings(), state)).toBeUndefined();
    expect(taskBudgetFor(defaultSettings({ budgetTokens: 5_000 }), { ...state, refused: ['task_budget'] })).toBeUndefined();
    expect(taskBudgetFor(defaultSettings({ budgetTokens: 500 }), state)).toEqual({ total: 500, remaining: 0 });
  });
});
