// One set of bounds (SETTING_BOUNDS): the library's check, the CLI's flags and the HTTP API's body refuse the same
// values with the same words, each naming the setting as its caller wrote it (a field, a flag, a body field).
import { describe, expect, it } from 'vitest';
import { checkAgentSettings, InvalidSettingsError, SETTING_BOUNDS } from '../../src/core/settings-check.js';
import { defaultSettings } from '../../src/core/settings.js';
import { parseArgs } from '../../src/core/args.js';
import { settingsFromFlags, START_FLAGS } from '../../src/cli/settings.js';
import { parseRunRequest } from '../../src/serve/run-request.js';

/** The same bad value through the three doors: what each says is wrong. */
function refusals(field: keyof typeof SETTING_BOUNDS, flag: string, value: number) {
  let library = '';
  try {
    checkAgentSettings(defaultSettings({ [field]: value }));
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidSettingsError);
    library = (err as InvalidSettingsError).message;
  }
  let cli = '';
  try {
    settingsFromFlags(parseArgs([`--${flag}`, String(value)], START_FLAGS).flags);
  } catch (err) {
    cli = (err as Error).message;
  }
  let http = '';
  try {
    parseRunRequest({ task: 'a task', [field === 'thinkingBudget' ? 'thinking' : camel(flag)]: value });
  } catch (err) {
    http = (err as Error).message;
  }
  return { library, cli, http };
}
const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

describe('one set of bounds for the library, the CLI and POST /v1/runs', () => {
  it.each([
    ['maxSteps', 'max-steps', 20_000, 'must be at most 10000 (got 20000)'],
    ['maxSteps', 'max-steps', 0, 'must be at least 1 (got 0)'],
    ['maxOutputTokens', 'max-output-tokens', 200_000, 'must be at most 128000 (got 200000)'],
    ['maxToolOutputChars', 'max-tool-output', 50, 'must be at least 100 (got 50)'],
    ['maxAgentDepth', 'max-agent-depth', 11, 'must be at most 10 (got 11)'],
    ['budgetUsd', 'budget-usd', -1, 'must be at least 0 (got -1)'],
  ] as const)('%s = %s: the same words from all three', (field, flag, value, words) => {
    const { library, cli, http } = refusals(field, flag, value);
    expect(library).toBe(`invalid settings: ${field} ${words}`);
    expect(cli).toBe(`--${flag} ${words}`);
    expect(http).toBe(`${camel(flag)} ${words}`);
  });

  it("every bounded flag takes its bounds from the library's table", () => {
    const flags = START_FLAGS as Record<string, { type: string; min?: number; max?: number }>;
    const flagOf: Record<keyof typeof SETTING_BOUNDS, string> = {
      maxSteps: 'max-steps',
      maxOutputTokens: 'max-output-tokens',
      budgetTokens: 'budget-tokens',
      budgetUsd: 'budget-usd',
      thinkingBudget: 'thinking',
      continueAsNewAfterSteps: 'continue-as-new-after',
      maxToolOutputChars: 'max-tool-output',
      contextClearAtTokens: 'context-clear-at',
      compactAt: 'compact-at',
      maxAgentDepth: 'max-agent-depth',
    };
    for (const [field, bounds] of Object.entries(SETTING_BOUNDS) as Array<[keyof typeof SETTING_BOUNDS, { min: number; max?: number }]>) {
      expect(flags[flagOf[field]], field).toMatchObject({ min: bounds.min, ...(bounds.max !== undefined ? { max: bounds.max } : {}) });
    }
  });
});
