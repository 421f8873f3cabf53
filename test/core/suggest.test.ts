// One "did you mean" rule for every name the project suggests: flags, commands, tools, sub-agents.
import { describe, expect, it } from 'vitest';
import { editDistance, nearestName } from '../../src/core/suggest.js';

describe('nearestName', () => {
  const flags = ['json', 'model', 'max-steps', 'max-output-tokens', 'tools', 'task-file'];

  it('suggests a name one or two edits away, or a unique prefix', () => {
    expect(nearestName('max-step', flags)).toBe('max-steps');
    expect(nearestName('tols', flags)).toBe('tools');
    expect(nearestName('mdoel', flags)).toBe('model');
    expect(nearestName('task', flags)).toBe('task-file');
  });

  it('suggests nothing for a word unlike any name, or too short to tell', () => {
    expect(nearestName('frobnicate', flags)).toBeUndefined();
    expect(nearestName('x', flags)).toBeUndefined();
    expect(nearestName('', flags)).toBeUndefined();
  });

  it('counts a swap of two neighbours as one edit', () => {
    expect(editDistance('mdoel', 'model')).toBe(1);
    expect(editDistance('abc', 'abc')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });
});

describe('nearestName for tool names', () => {
  it('suggests the MCP tool meant by a typo in a long name, case-insensitively, and nothing for another name', () => {
    const tools = ['calculator', 'everything__get-sum', 'everything__echo', 'web_search'];
    expect(nearestName('everything__get-summ', tools)).toBe('everything__get-sum');
    expect(nearestName('Calculater', tools)).toBe('calculator');
    expect(nearestName('wether', ['weather', 'calculator'])).toBe('weather');
    expect(nearestName('memory__read_graph', tools)).toBeUndefined();
  });
});
