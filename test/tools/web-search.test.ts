import { describe, expect, it } from 'vitest';
import { ToolError, type ToolContext } from '../../src/tools/types.js';
import { mockSearch, webSearch } from '../../src/tools/web-search.js';
import { toolContext } from '../../src/tools/context.js';

const context: ToolContext = toolContext({
  workflowId: 'wf',
  toolUseId: 'toolu_1',
  idempotencyKey: 'wf/toolu_1',
  signal: new AbortController().signal,
});

describe('web_search stub', () => {
  it('answers a query about the population of France with text containing a number', async () => {
    const text = await webSearch.execute({ query: 'population of France' }, context);
    expect(text).toContain('68,606,000');
    expect(text).toMatch(/\d{2},\d{3},\d{3}/);
  });

  it('matches keywords regardless of case, order and punctuation', () => {
    expect(mockSearch("What is France's POPULATION?")).toContain('68,606,000');
  });

  it('formats results as a numbered list with title, fake url and snippet', () => {
    const text = mockSearch('population of France');
    expect(text).toMatch(/^1\. France population/m);
    expect(text).toMatch(/^2\. /m);
    expect(text).toContain('URL: https://example.com/mock/');
    expect(text).toContain('(fake URL)');
    expect(text).toContain('not live web results');
  });

  it('says it is a stub with no real results for an unknown query, never an empty string', () => {
    const text = mockSearch('quantum gravity breakthroughs');
    expect(text).toContain('stub with no real results for "quantum gravity breakthroughs"');
    expect(text).toContain('population of France');
    expect(text).toMatch(/^1\. /m);
  });

  it('returns the same text for the same query every time', async () => {
    const first = await webSearch.execute({ query: 'population of France' }, context);
    const second = await webSearch.execute({ query: 'population of France' }, context);
    expect(second).toBe(first);
    expect(mockSearch('something unknown')).toBe(mockSearch('something unknown'));
  });

  it('does not match on a single keyword of a multi-keyword entry', () => {
    expect(mockSearch('population of Spain')).toContain('no real results');
  });

  it('rejects a blank query with a ToolError', () => {
    expect(() => mockSearch('   ')).toThrow(ToolError);
  });

  it('tells the model in its description that it is a stub', () => {
    expect(webSearch.name).toBe('web_search');
    expect(webSearch.description).toMatch(/stub/i);
    expect(webSearch.inputSchema).toMatchObject({ required: ['query'], additionalProperties: false });
  });
});
