// A fork's flags replace only the settings they set: the others stay the source's.
import { describe, expect, it } from 'vitest';
import { forkValues, settingsGivenBy, sourceSettingValues } from '../../src/core/fork-settings.js';
import { runInput } from '../../src/config/run-input.js';
import { toolCatalog } from '../../src/config/tool-names.js';
import { defaultSettings } from '../../src/core/settings.js';

describe('settingsGivenBy', () => {
  it('takes the fields of the flags given, and none of the defaults of the flags not given', () => {
    const full = defaultSettings({ system: 'Check twice', maxSteps: 4, tools: ['calculator'], model: 'claude-default' });
    expect(settingsGivenBy({ system: 'Check twice', maxSteps: 4 }, full)).toEqual({ system: 'Check twice', maxSteps: 4 });
    expect(settingsGivenBy({ agents: [], promptCaching: false, priority: 2 }, { ...full, promptCaching: false })).toEqual({ tools: ['calculator'], promptCaching: false });
    expect(settingsGivenBy({}, full)).toEqual({});
  });

  it("checks a fork's given values over the source's settings, leaving out its tools and approvals (another config's tools)", () => {
    const source = defaultSettings({ tools: ['lookup', 'calculator'], approve: ['lookup'], maxOutputTokens: 16000, thinkingBudget: 8000 });
    const catalog = toolCatalog({}); // this process knows the built-ins only, not the source's `lookup`
    const given = { thinkingBudget: 12000 };
    const full = runInput({ ...sourceSettingValues(source), ...given }, catalog).settings;
    expect(full).toMatchObject({ maxOutputTokens: 16000, thinkingBudget: 12000 });
    expect(settingsGivenBy(given, full)).toEqual({ thinkingBudget: 12000 });
    expect(() => runInput({ ...sourceSettingValues(source), thinkingBudget: 20000 }, catalog)).toThrow('must be less than maxOutputTokens (16000; got 20000)');
  });

  it("agents given without tools replace the source's sub-agents only: its other tools stay, none is added", () => {
    const source = defaultSettings({ tools: ['calculator', 'agent__researcher'] });
    const catalog = { ...toolCatalog({}), agents: ['researcher', 'writer'] };
    const given = { agents: ['writer'] };
    const full = runInput({ ...sourceSettingValues(source), ...given }, catalog).settings;
    expect(settingsGivenBy(given, full, source)).toEqual({ tools: ['calculator', 'agent__writer'] });
    expect(settingsGivenBy({ agents: [] }, runInput({ ...sourceSettingValues(source), agents: [] }, catalog).settings, source)).toEqual({ tools: ['calculator'] });
    // With tools given too, both are the fork's.
    const both = { tools: ['web_search'], agents: ['writer'] };
    expect(settingsGivenBy(both, runInput({ ...sourceSettingValues(source), ...both }, catalog).settings, source)).toEqual({ tools: ['web_search', 'agent__writer'] });
  });

  it("server-tool fields given keep the source's others: its domains stay when the tools change, its tools when a field is given", () => {
    const source = defaultSettings({ tools: ['calculator'], serverTools: { tools: ['web_search'], allowedDomains: ['insee.fr'], webSearchMaxUses: 5 } });
    const catalog = toolCatalog({});
    const fork = (given: Record<string, unknown>) => settingsGivenBy(given, runInput(forkValues(source, given), catalog).settings, source);
    expect(fork({ serverTools: { tools: ['web_search', 'web_fetch'] } })).toEqual({
      serverTools: { tools: ['web_search', 'web_fetch'], allowedDomains: ['insee.fr'], webSearchMaxUses: 5 },
    });
    expect(fork({ serverTools: { webSearchMaxUses: 3 } })).toEqual({ serverTools: { tools: ['web_search'], allowedDomains: ['insee.fr'], webSearchMaxUses: 3 } });
    // A field that no longer applies goes; a domain list given replaces the other kind.
    expect(fork({ serverTools: { tools: ['web_fetch'] } })).toEqual({ serverTools: { tools: ['web_fetch'], allowedDomains: ['insee.fr'] } });
    expect(fork({ serverTools: { blockedDomains: ['example.com'] } })).toEqual({ serverTools: { tools: ['web_search'], blockedDomains: ['example.com'], webSearchMaxUses: 5 } });
    expect(fork({ serverTools: { tools: ['code_execution'] } })).toEqual({ serverTools: { tools: ['code_execution'] } });
  });
});
