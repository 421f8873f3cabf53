// The `agents` of a config: checked at load time (one line naming the agent), and turned into the definitions a
// worker records (durations in ms); AgentPlugin checks them the same way.
import { describe, expect, it } from 'vitest';
import { checkAgents, subAgentDefinitions } from '../../src/config/agents.js';
import { checkConfig, ConfigError } from '../../src/config/check.js';
import { AgentPlugin } from '../../src/worker/plugin.js';

const known = (name: string) => ['calculator', 'web_search'].includes(name) || name.startsWith('files__');

describe('checkAgents', () => {
  it('takes agents naming tools, MCP tools and each other within the depth limit', () => {
    const agents = {
      lead: { description: 'Leads.', tools: ['agent__researcher', 'calculator'] },
      researcher: { description: 'Researches.', tools: ['web_search', 'files__*'], deadline: '2m', budgetTokens: 10_000 },
    };
    expect(checkAgents(agents, known)).toBe(agents);
    expect(subAgentDefinitions(agents)?.researcher).toEqual({ description: 'Researches.', tools: ['web_search', 'files__*'], deadlineMs: 120_000, budgetTokens: 10_000 });
  });

  it('refuses, in one line naming the agent, what would go wrong at run time', () => {
    const refused = (agents: unknown, maxDepth?: number) => {
      try {
        checkAgents(agents, known, maxDepth);
      } catch (err) {
        expect((err as Error).message).not.toContain('\n');
        return (err as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refused({ a__b: { description: 'd' } })).toMatch(/agent name "a__b" is not a valid tool name/);
    expect(refused({ ['x'.repeat(58)]: { description: 'd' } })).toMatch(/is not a valid tool name/);
    expect(refused({ r: {} })).toMatch(/agents\.r\.description must be a non-empty string/);
    expect(refused({ r: { description: 'd', tool: [] } })).toMatch(/agents\.r: unknown key "tool"/);
    expect(refused({ r: { description: 'd', deadline: 'soon' } })).toMatch(/agents\.r\.deadline/);
    expect(refused({ r: { description: 'd', maxSteps: 0 } })).toBe('agents.r.maxSteps must be at least 1 (got 0)');
    expect(refused({ r: { description: 'd', effort: 'hgh' } })).toBe('agents.r.effort must be one of low, medium, high, xhigh, max (got "hgh"; did you mean "high"?)');
    expect(refused({ r: { description: 'd', tools: ['agent__r'] } })).toMatch(/agents: r → r is a cycle/);
    expect(refused({ r: { description: 'd', inputSchema: { type: 'object', properties: { task: { type: 'number' } } } } })).toMatch(/agents\.r\.inputSchema must not define "task"/);
    expect(refused({ r: { description: 'd', inputSchema: { type: 'string' } } })).toMatch(/agents\.r\.inputSchema must be an object schema/);
    expect(refused({ a: { description: 'd', tools: ['agent__b'] }, b: { description: 'd' } }, 1)).toMatch(/agents\.a delegates 2 levels deep, beyond the depth limit of 1/);
  });
});

describe('a config with agents', () => {
  it('reserves the MCP server name "agent" (agent__<name> are the sub-agents) and checks maxAgentDepth', () => {
    expect(() => checkConfig({ mcpServers: { agent: { command: 'x' } } }, 'c.mjs')).toThrow(/MCP server name "agent" is reserved/);
    expect(() => checkConfig({ maxAgentDepth: 0 }, 'c.mjs')).toThrow(ConfigError);
    expect(checkConfig({ agents: { r: { description: 'd', tools: ['calculator'] } } }, 'c.mjs').agents).toEqual({ r: { description: 'd', tools: ['calculator'] } });
  });

  it('AgentPlugin refuses agents naming a tool it does not have', () => {
    expect(() => new AgentPlugin({ agents: { r: { description: 'd', tools: ['shout'] } } })).toThrow(/agents\.r\.tools names "shout"/);
  });

  it('AgentPlugin refuses the MCP server name "agent" where it is made, as the config file does', () => {
    expect(() => new AgentPlugin({ mcpServers: { agent: { command: 'x' } } })).toThrow(/mcpServers\.agent: the server name "agent" is reserved/);
    expect(() => new AgentPlugin({ mcpServers: { 'a__b': { command: 'x' } } })).toThrow(/mcpServers\.a__b: a server name may hold only/);
  });
});
