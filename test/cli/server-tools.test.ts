// `--server-tools` and its options: what they put in the settings, and the usage errors (exit 2) for what the
// API would refuse or what would silently do nothing.
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../src/cli/args.js';
import { settingsFromFlags, START_FLAGS } from '../../src/cli/settings.js';

const settings = (...argv: string[]) => settingsFromFlags(parseArgs(argv, START_FLAGS).flags);
const usageError = (...argv: string[]): string => {
  try {
    settings(...argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
};

describe('--server-tools', () => {
  it('carries the server tools and their options in the settings; the web_search stub steps aside', () => {
    const s = settings('--server-tools', 'web_search,web_fetch', '--web-search-max-uses', '4', '--allowed-domains', 'insee.fr,wikipedia.org');
    expect(s.serverTools).toEqual({ tools: ['web_search', 'web_fetch'], webSearchMaxUses: 4, allowedDomains: ['insee.fr', 'wikipedia.org'] });
    expect(s.tools).toContain('calculator');
    expect(s.tools).not.toContain('web_search');
    expect(settings().serverTools).toBeUndefined();
    expect(settings().tools).toContain('web_search');
  });

  it('an unknown name is a usage error that suggests the nearest and lists the valid ones', () => {
    expect(usageError('--server-tools', 'web_serch')).toBe(
      'unknown server tool "web_serch" (did you mean "web_search"?) in --server-tools (valid: web_search, web_fetch, code_execution)',
    );
  });

  it('refuses combinations the API rejects or that would do nothing', () => {
    expect(usageError('--server-tools', 'web_search', '--tools', 'web_search,calculator')).toMatch(/web_search is in both --tools and --server-tools/);
    expect(usageError('--server-tools', 'web_search', '--allowed-domains', 'a.com', '--blocked-domains', 'b.com')).toMatch(/cannot be combined/);
    expect(usageError('--web-search-max-uses', '3')).toMatch(/add --server-tools web_search/);
    expect(usageError('--server-tools', 'code_execution', '--blocked-domains', 'b.com')).toMatch(/applies to the web_search and web_fetch server tools/);
    expect(usageError('--server-tools', 'web_search', '--allowed-domains', 'https://insee.fr')).toMatch(/has a scheme; give the domain alone \(e\.g\. insee\.fr\)/);
    expect(usageError('--server-tools', 'web_search', '--web-search-max-uses', '0')).toMatch(/at least 1/);
  });
});
