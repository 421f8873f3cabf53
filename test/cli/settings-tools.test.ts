// Which tools a run started from the CLI gets: runFromFlags against a catalog of the built-ins, a config
// file's tools and its MCP servers (no server needed: this is what goes into the workflow input).
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/args.js';
import { runFromFlags, type StartFlags } from '../../src/cli/settings.js';

const settingsFromFlags = (flags: StartFlags, catalog?: typeof CATALOG) => runFromFlags(flags, catalog).settings;

const CATALOG = { tools: ['calculator', 'web_search', 'weather'], mcpServers: ['github'] };

describe('runFromFlags: tools', () => {
  it('without --tools a run gets every tool, each MCP server as the pattern <server>__* the worker expands', () => {
    expect(settingsFromFlags({}, CATALOG).tools).toEqual(['calculator', 'web_search', 'weather', 'github__*']);
    expect(settingsFromFlags({}).tools).toEqual(['calculator', 'web_search']);
  });

  it('--tools takes registered names and any tool of a configured MCP server', () => {
    expect(settingsFromFlags({ tools: ['weather', 'github__create_issue'] }, CATALOG).tools).toEqual([
      'weather',
      'github__create_issue',
    ]);
  });

  it('a typo in --tools is a usage error suggesting the nearest name', () => {
    expect(() => settingsFromFlags({ tools: ['wether'] }, CATALOG)).toThrow(UsageError);
    expect(() => settingsFromFlags({ tools: ['githb__list'] }, CATALOG)).toThrow(
      /unknown tool "githb__list" \(did you mean "github__list"\?\) in --tools \(available: calculator, web_search, weather, github__\*\)/,
    );
  });

  it('--approve accepts an MCP tool the run may use through its server pattern, and refuses a pattern', () => {
    expect(settingsFromFlags({ approve: ['github__create_issue'] }, CATALOG).approve).toEqual(['github__create_issue']);
    expect(() => settingsFromFlags({ approve: ['github__*'] }, CATALOG)).toThrow(/--approve takes tool names, not "github__\*"/);
    expect(() => settingsFromFlags({ tools: ['weather'], approve: ['github__create_issue'] }, CATALOG)).toThrow(
      /which the run may not use/,
    );
  });
});
