// `--server-tools` and its options: what they put in the settings, and the usage errors (exit 2) for what the
// API would refuse or what would silently do nothing.
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../src/core/args.js';
import { formatTranscript } from '../../src/cli/commands/transcript.js';
import { formatResult } from '../../src/cli/output.js';
import { runFromFlags, START_FLAGS } from '../../src/cli/settings.js';
import type { MessageParam } from '../../src/core/types.js';

const settings = (...argv: string[]) => runFromFlags(parseArgs(argv, START_FLAGS).flags).settings;
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
      '--server-tools must be one of web_search, web_fetch, code_execution (got "web_serch"; did you mean "web_search"?)',
    );
  });

  it('refuses combinations the API rejects or that would do nothing', () => {
    expect(usageError('--server-tools', 'web_search', '--tools', 'web_search,calculator')).toMatch(/web_search is in both --tools and --server-tools/);
    expect(usageError('--server-tools', 'web_search', '--allowed-domains', 'a.com', '--blocked-domains', 'b.com')).toBe('--blocked-domains cannot be combined with --allowed-domains (the API takes one or the other)');
    expect(usageError('--web-search-max-uses', '3')).toBe('--web-search-max-uses applies to the web_search server tool: add --server-tools web_search');
    expect(usageError('--server-tools', 'code_execution', '--blocked-domains', 'b.com')).toMatch(/applies to the web_search and web_fetch server tools/);
    expect(usageError('--server-tools', 'web_search', '--allowed-domains', 'https://insee.fr')).toMatch(/has a scheme; give the domain alone \(e\.g\. insee\.fr\)/);
    expect(usageError('--server-tools', 'web_search', '--web-search-max-uses', '0')).toMatch(/at least 1/);
  });
});

describe('server tool blocks in `transcript`', () => {
  it('shows the call and the pages a search found, one line each', () => {
    const messages = [
      { role: 'user', content: 'population of France?' },
      {
        role: 'assistant',
        content: [
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'population of France' } },
          {
            type: 'web_search_tool_result',
            tool_use_id: 'srvtoolu_1',
            content: [{ type: 'web_search_result', title: 'INSEE', url: 'https://insee.fr/p', encrypted_content: 'x', page_age: null }],
          },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_2', content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' } },
        ],
      },
    ] as MessageParam[];
    expect(formatTranscript(messages)).toContain(
      [
        '[server_tool_use] web_search {"query":"population of France"}  (srvtoolu_1)',
        '[web_search_tool_result] 1 result: INSEE (https://insee.fr/p)',
        '[web_search_tool_result] error max_uses_exceeded',
      ].join('\n'),
    );
  });
});

describe('the result line', () => {
  it('counts the web searches and fetches of a run that used them', () => {
    const base = {
      workflowId: 'wf', runId: 'r', status: 'completed' as const, stopReason: 'end_turn' as const, guard: null, text: 'done',
      partial: false, steps: 2, toolCalls: 1, costUsd: 0.01, error: null,
      usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
    expect(formatResult(base, false)).toMatch(/· 15 tokens · wf\n$/);
    const searched = { ...base, usage: { ...base.usage, server_tool_use: { web_search_requests: 2, web_fetch_requests: 1 } } };
    expect(formatResult(searched, false)).toMatch(/· 15 tokens · 2 web searches · 1 web fetch · wf\n$/);
  });
});
