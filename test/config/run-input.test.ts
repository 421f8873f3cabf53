// runInput: the values a caller gave (flags, a POST body) as a run's settings. Here, the prices it keeps.
import { describe, expect, it } from 'vitest';
import { runInput } from '../../src/config/run-input.js';
import { toolCatalog } from '../../src/config/tool-names.js';

const CATALOG = { tools: ['calculator'], mcpServers: [], agents: ['cheap'] };
const rates = (input: number) => ({ input, output: 2 * input, cacheWrite: input, cacheRead: input / 10 });

describe('runInput: prices', () => {
  it("a run that may delegate keeps the prices given for other models (its sub-agents' may run them); one that does not keeps its own model's only", () => {
    const prices = { 'my-lead': rates(1), 'my-cheap': rates(0.1) };
    const delegating = runInput({ model: 'my-lead', prices, budgetUsd: 1 }, CATALOG).settings;
    expect(delegating.tools).toContain('agent__cheap');
    expect(delegating.prices).toEqual(prices);
    const alone = runInput({ model: 'my-lead', prices, budgetUsd: 1, agents: [] }, CATALOG).settings;
    expect(alone.prices).toEqual({ 'my-lead': rates(1) });
  });
});

describe('runInput: maxAgentDepth', () => {
  it("a run that may delegate nests as deep as the config (or the answering worker) allows, unless it gives its own limit", () => {
    const deep = { ...CATALOG, maxAgentDepth: 3 };
    expect(runInput({}, deep).settings.maxAgentDepth).toBe(3);
    expect(runInput({ maxAgentDepth: 1 }, deep).settings.maxAgentDepth).toBe(1);
    expect(runInput({}, CATALOG).settings.maxAgentDepth).toBeUndefined();
    expect(runInput({ agents: [] }, deep).settings.maxAgentDepth).toBeUndefined();
    expect(toolCatalog({ maxAgentDepth: 3, agents: { cheap: { description: 'd' } } })).toMatchObject({ agents: ['cheap'], maxAgentDepth: 3 });
  });
});

describe('runInput: a sub-agent named in tools', () => {
  it('is refused naming the setting that takes sub-agents, not as an unknown tool', () => {
    expect(() => runInput({ tools: ['calculator', 'agent__cheap'] }, CATALOG)).toThrow(
      'tools names "agent__cheap", a sub-agent: give it as agents: ["cheap"]',
    );
    expect(runInput({ tools: ['calculator'], agents: ['cheap'] }, CATALOG).settings.tools).toEqual(['calculator', 'agent__cheap']);
  });
});
