// The one check of AgentSettings, read off the table of run settings (what startAgent, the CLI, serve and the workflow ask): every value that would fail, stall
// or silently misbehave a run is refused with one line naming the field; the defaults and every valid value pass.
import { describe, expect, it } from 'vitest';
import {
  checkAgentInput,
  checkAgentSettings,
  InvalidSettingsError,
  MAX_INPUT_BYTES,
  settingsProblem,
} from '../../src/core/settings-check.js';
import { defaultSettings } from '../../src/core/settings.js';
import type { AgentSettings } from '../../src/core/types.js';
import { validateJsonSchema } from '../../src/tools/validate.js';

const withAjv = { compileSchema: validateJsonSchema };

function refusal(overrides: Record<string, unknown>): InvalidSettingsError {
  const settings = { ...defaultSettings(), ...overrides } as AgentSettings;
  let thrown: unknown;
  try {
    checkAgentSettings(settings, withAjv);
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(InvalidSettingsError);
  const err = thrown as InvalidSettingsError;
  expect(err.message).not.toContain('\n');
  return err;
}

describe('settingsProblem', () => {
  it('passes the defaults, and settings with every optional field set to a valid value', () => {
    expect(settingsProblem(defaultSettings())).toBeNull();
    const full: AgentSettings = {
      ...defaultSettings({ tools: ['calculator'], system: 'Be brief.' }),
      budgetTokens: 10_000,
      budgetUsd: 0,
      deadlineMs: 60_000,
      summaryOn: [],
      prices: { m: { input: 1, output: 2, cacheWrite: 1.25, cacheRead: 0.1 } },
      effort: 'high',
      thinkingBudget: 1024,
      maxOutputTokens: 8000,
      outputSchema: { type: 'object', properties: { n: { type: 'number' } } },
      approve: ['calculator'],
      chat: true,
      idleTimeoutMs: 1000,
      searchAttributes: false,
      continueAsNewAfterSteps: 5,
      maxToolOutputChars: 100,
      contextClearAtTokens: 1000,
      compactAt: 5000,
      heartbeatTimeoutMs: 2000,
      serverTools: { tools: ['web_search'], webSearchMaxUses: 3, allowedDomains: ['example.com'] },
      toolTimeoutMs: 1000,
      maxAgentDepth: 2,
    };
    expect(settingsProblem(full, withAjv)).toBeNull();
  });

  it('leaves a field it does not know alone (a newer client may send one)', () => {
    expect(settingsProblem({ ...defaultSettings(), someFutureField: 1 })).toBeNull();
  });

  it.each([
    [{ heartbeatTimeoutMs: -1 }, 'heartbeatTimeoutMs', /must be at least 1000 ms \(got -1 ms\)/],
    [{ heartbeatTimeoutMs: 0 }, 'heartbeatTimeoutMs', /got 0/],
    [{ maxSteps: 0 }, 'maxSteps', /must be at least 1 \(got 0\)/],
    [{ maxSteps: 20_000 }, 'maxSteps', /must be at most 10000 \(got 20000\)/],
    [{ maxSteps: -1 }, 'maxSteps', /got -1/],
    [{ maxSteps: NaN }, 'maxSteps', /got NaN/],
    [{ maxSteps: 2.5 }, 'maxSteps', /whole number/],
    [{ maxOutputTokens: 0 }, 'maxOutputTokens', /must be at least 1/],
    [{ maxOutputTokens: 200_000 }, 'maxOutputTokens', /must be at most 128000/],
    [{ budgetTokens: -5 }, 'budgetTokens', /must be at least 1 \(got -5\)/],
    [{ budgetUsd: -0.01 }, 'budgetUsd', /must be at least 0 \(got -0.01\)/],
    [{ budgetUsd: Infinity }, 'budgetUsd', /got Infinity/],
    [{ deadlineMs: 0 }, 'deadlineMs', /must be more than 0 ms \(got 0 ms\)/],
    [{ deadlineMs: -1000 }, 'deadlineMs', /got -1000/],
    [{ maxToolOutputChars: -1 }, 'maxToolOutputChars', /must be at least 100 \(got -1\)/],
    [{ summaryOn: ['bogus'] }, 'summaryOn', /^invalid settings: summaryOn\[0\] must be one of max_steps, repetition, error_streak \(got "bogus"\)/],
    [{ summaryOn: ['budget'] }, 'summaryOn', /"budget"/],
    [{ summaryOn: 'max_steps' }, 'summaryOn', /must be an array of strings \(got "max_steps"\)/],
    [{ tools: null }, 'tools', /must be an array of strings \(got null\)/],
    [{ tools: ['calculator', 3] }, 'tools', /tools\[1\] must be a string \(got 3\)/],
    [{ outputSchema: { type: 'nope' } }, 'outputSchema', /is not a usable JSON Schema: .*type/],
    [{ outputSchema: [1] }, 'outputSchema', /must be an object \(got an array\)/],
    [{ model: '' }, 'model', /must not be empty/],
    [{ effort: 'extreme' }, 'effort', /must be one of low, medium, high, xhigh, max/],
    [{ thinkingBudget: 4096 }, 'thinkingBudget', /must be less than maxOutputTokens \(4096; got 4096\)/],
    [{ thinkingBudget: 500 }, 'thinkingBudget', /must be at least 1024/],
    [{ compactAt: 4999 }, 'compactAt', /must be at least 5000/],
    [{ compactAt: 250_000 }, 'compactAt', /above the context window of claude-sonnet-5-5 \(200000 tokens\)/],
    [{ compactAt: 50_000, compaction: false }, 'compactAt', /cannot be given with compaction: false/],
    [{ toolTimeoutMs: 10 }, 'toolTimeoutMs', /at least 1000 ms/],
    [{ idleTimeoutMs: -1 }, 'idleTimeoutMs', /more than 0 ms/],
    [{ continueAsNewAfterSteps: 0 }, 'continueAsNewAfterSteps', /at least 1/],
    [{ maxAgentDepth: 0 }, 'maxAgentDepth', /at least 1/],
    [{ promptCaching: 'yes' }, 'promptCaching', /true or false/],
    [{ prices: { m: { input: 1 } } }, 'prices', /^invalid settings: prices\.m\.output is missing/],
    [{ prices: { m: { input: 1, output: -1, cacheWrite: 1, cacheRead: 1 } } }, 'prices', /prices\.m\.output must be at least 0 \(got -1\)/],
    [{ serverTools: { tools: ['web_surf'] } }, 'serverTools', /serverTools\.tools\[0\] must be one of web_search, web_fetch, code_execution \(got "web_surf"\)/],
    [{ serverTools: { tools: ['web_fetch'], webSearchMaxUses: 3 } }, 'serverTools', /serverTools\.webSearchMaxUses applies to the web_search server tool: add serverTools\.tools: \["web_search"\]/],
    [{ serverTools: { tools: ['web_search'], webSearchMaxUses: 1001 } }, 'serverTools', /must be at most 1000/],
    [{ serverTools: { tools: ['web_search'], allowedDomains: ['https://a.org'] } }, 'serverTools', /has a scheme/],
    [{ idleTimeoutMs: 0 }, 'idleTimeoutMs', /more than 0 ms/],
    [{ webhooks: ['https://a.org/h', 'ftp://b'] }, 'webhooks', /^invalid settings: webhooks\[1\] "ftp:\/\/b" is not an http/],
    [{ serverTools: { tools: ['web_fetch'], allowedDomains: ['a.org'], blockedDomains: ['b.org'] } }, 'serverTools', /blockedDomains cannot be combined with serverTools\.allowedDomains/],
    [{ maxSteps: undefined }, 'maxSteps', /is missing \(start from defaultSettings\(\)\)/],
  ])('refuses %j, naming %s', (overrides, field, message) => {
    const err = refusal(overrides);
    expect(err.field).toBe(field);
    expect(err.message).toMatch(new RegExp(`^invalid settings: ${field}[ .[]`));
    expect(err.message).toMatch(message);
  });

  it('says the size of a system prompt too large for one payload, and the limit', () => {
    const err = refusal({ system: 'x'.repeat(3_000_000) });
    expect(err.field).toBe('system');
    expect(err.message).toMatch(/system is 3\.0 MB: a run's input .* at most 2 MB \(1\.8 MB fit\): shorten the system prompt/);
  });

  it('compiles the output schema only when given a compiler (the workflow checks its shape alone)', () => {
    const settings = defaultSettings({ outputSchema: { type: 'nope' } });
    expect(settingsProblem(settings)).toBeNull();
    expect(settingsProblem(settings, withAjv)?.field).toBe('outputSchema');
  });

  it('refuses something other than an object as the settings', () => {
    expect(settingsProblem(null)).toEqual({ field: 'settings', path: 'settings', problem: 'must be an object (got null)' });
  });
});

describe('checkAgentInput', () => {
  it('refuses a task and settings that do not fit in one payload together, saying the size', () => {
    const half = 'y'.repeat(MAX_INPUT_BYTES / 2 + 10);
    expect(() => checkAgentInput(half, defaultSettings({ system: half }))).toThrow(
      /^invalid settings: task and settings are 1\.8 MB together: .*at most 2 MB/,
    );
    expect(() => checkAgentInput('a task', defaultSettings({ system: 'short' }))).not.toThrow();
  });

  it('refuses a task that is not a string', () => {
    expect(() => checkAgentInput(undefined, defaultSettings())).toThrow(/^invalid settings: task must be a string \(got undefined\)/);
  });
});
