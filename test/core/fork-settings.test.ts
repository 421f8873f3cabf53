// A fork's flags replace only the settings they set: the others stay the source's.
import { describe, expect, it } from 'vitest';
import { settingsGivenBy } from '../../src/core/fork-settings.js';
import { defaultSettings } from '../../src/core/settings.js';

describe('settingsGivenBy', () => {
  it('takes the fields of the flags given, and none of the defaults of the flags not given', () => {
    const full = defaultSettings({ system: 'Check twice', maxSteps: 4, tools: ['calculator'], model: 'claude-default' });
    expect(settingsGivenBy({ system: 'Check twice', maxSteps: 4 }, full)).toEqual({ system: 'Check twice', maxSteps: 4 });
    expect(settingsGivenBy({ agents: [], promptCaching: false, priority: 2 }, { ...full, promptCaching: false })).toEqual({ tools: ['calculator'], promptCaching: false });
    expect(settingsGivenBy({}, full)).toEqual({});
  });
});
