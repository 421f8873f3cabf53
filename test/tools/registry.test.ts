import { describe, expect, it } from 'vitest';
import { calculator } from '../../src/tools/calculator.js';
import { builtinTools, createToolRegistry } from '../../src/tools/registry.js';
import { defineTool, type AgentTool } from '../../src/tools/types.js';
import { webSearch } from '../../src/tools/web-search.js';

function fakeTool(name: string, inputSchema: AgentTool['inputSchema'] = { type: 'object' }): AgentTool {
  return defineTool({ name, description: `the ${name} tool`, inputSchema, execute: async () => 'ok' });
}

describe('builtinTools', () => {
  it('contains the calculator and the web_search stub', () => {
    expect(builtinTools.map((t) => t.name)).toEqual(['calculator', 'web_search']);
  });
});

describe('createToolRegistry', () => {
  it('uses the built-in tools by default', () => {
    expect(createToolRegistry().names()).toEqual(['calculator', 'web_search']);
  });

  it('looks tools up by name and returns undefined for an unknown name', () => {
    const registry = createToolRegistry([calculator, webSearch]);
    expect(registry.get('calculator')).toBe(calculator);
    expect(registry.get('web_search')).toBe(webSearch);
    expect(registry.get('nope')).toBeUndefined();
  });

  it('returns API definitions in the order asked for', () => {
    const registry = createToolRegistry([calculator, webSearch]);
    const defs = registry.definitions(['web_search', 'calculator']);
    expect(defs.map((d) => d.name)).toEqual(['web_search', 'calculator']);
    expect(defs[1]).toEqual({
      name: 'calculator',
      description: calculator.description,
      input_schema: calculator.inputSchema,
    });
  });

  it('returns no definitions for no names', () => {
    expect(createToolRegistry().definitions([])).toEqual([]);
  });

  it('throws naming the tool when a definition is asked for an unregistered name', () => {
    expect(() => createToolRegistry().definitions(['calculator', 'nope'])).toThrow(
      'Unknown tool "nope". Available tools: calculator, web_search',
    );
  });

  it('rejects a tool with no execute, naming it and what is missing', () => {
    const noExecute = { name: 'half', description: 'half a tool', inputSchema: { type: 'object' } } as unknown as AgentTool;
    expect(() => createToolRegistry([noExecute])).toThrow(/^Tool "half" has no execute: write it with defineTool/);
    expect(() => createToolRegistry([null as unknown as AgentTool])).toThrow(/^tools\[0\] is not a tool \(got null\)/);
    expect(() => createToolRegistry(null as unknown as AgentTool[])).toThrow(/^tools must be an array of tools \(got null\)/);
  });

  it('rejects an input schema that is not an object schema (the Messages API answers 400 to it)', () => {
    const str = fakeTool('echo', { type: 'string' } as unknown as AgentTool['inputSchema']);
    const untyped = fakeTool('bare', { properties: {} } as unknown as AgentTool['inputSchema']);
    expect(() => createToolRegistry([str])).toThrow(/^Tool "echo" has an input schema of type "string": the Messages API takes only an object schema/);
    expect(() => createToolRegistry([untyped])).toThrow(/^Tool "bare" has an input schema of type \(none\)/);
  });

  it('rejects two tools with the same name', () => {
    expect(() => createToolRegistry([fakeTool('dup'), fakeTool('dup')])).toThrow('Duplicate tool name "dup"');
  });

  it('rejects a name the Messages API would refuse', () => {
    expect(() => createToolRegistry([fakeTool('has space')])).toThrow('Invalid tool name "has space"');
    expect(() => createToolRegistry([fakeTool('x'.repeat(65))])).toThrow('Invalid tool name');
  });

  it('rejects a name in agent__<name>, the sub-agents\' tools (a run naming it would fail as delegating to an undefined sub-agent)', () => {
    expect(() => createToolRegistry([fakeTool('agent__lookup')])).toThrow(
      'Invalid tool name "agent__lookup": agent__<name> are the sub-agents\' tools; rename the tool (or define a sub-agent "lookup" under agents)',
    );
    expect(createToolRegistry([fakeTool('agent_lookup'), fakeTool('my_agent__x')]).names()).toEqual(['agent_lookup', 'my_agent__x']);
  });

  it('rejects a tool whose input schema does not compile', () => {
    const broken = fakeTool('broken', { type: 'object', properties: { n: { type: 'not-a-type' } } });
    expect(() => createToolRegistry([broken])).toThrow('Tool "broken" has an invalid input schema');
  });
});
