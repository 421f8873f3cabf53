import { describe, expect, it } from 'vitest';
import { allToolNames, mcpServerOf, unknownTools } from '../../src/config/tool-names.js';
import { toolAllowed as isAllowedBy } from '../../src/core/tool-names.js';
import { editDistance, nearestName } from '../../src/core/suggest.js';

const catalog = { tools: ['calculator', 'web_search', 'weather'], mcpServers: ['github'] };

describe('tool names', () => {
  it('all tools are the registered ones plus each MCP server as <server>__*', () => {
    expect(allToolNames(catalog)).toEqual(['calculator', 'web_search', 'weather', 'github__*']);
  });

  it('accepts registered names and any <server>__<tool> of a configured server, and nothing else', () => {
    expect(unknownTools(['calculator', 'github__create_issue', 'github__*'], catalog)).toEqual([]);
    expect(unknownTools(['gitlab__x', 'github__', 'github', '__x'], catalog).map((u) => u.name)).toEqual([
      'gitlab__x',
      'github__',
      'github',
      '__x',
    ]);
  });

  it('suggests the nearest name for a typo, and none for a name that is nothing like one', () => {
    expect(unknownTools(['wether', 'calculater', 'web-search', 'githb__*', 'zzzzzz'], catalog)).toEqual([
      { name: 'wether', suggestion: 'weather' },
      { name: 'calculater', suggestion: 'calculator' },
      { name: 'web-search', suggestion: 'web_search' },
      { name: 'githb__*', suggestion: 'github__*' },
      { name: 'zzzzzz', suggestion: undefined },
    ]);
  });

  it('a run allowed <server>__* may call every tool of that server', () => {
    expect(isAllowedBy('github__create_issue', ['github__*'])).toBe(true);
    expect(isAllowedBy('github__create_issue', ['github__list'])).toBe(false);
    expect(isAllowedBy('calculator', ['github__*'])).toBe(false);
    expect(mcpServerOf('a__b__c')).toBe('a');
  });
});

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('same', 'same')).toBe(0);
    expect(nearestName('CALCULATOR', ['calculator'])).toBe('calculator');
  });
});
