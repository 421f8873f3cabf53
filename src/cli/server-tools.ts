// `--server-tools web_search,web_fetch,code_execution` and its options: Claude's server tools, checked here so a
// typo or a combination the API refuses is a usage error (exit 2), not a failed run.
import { nearestName } from '../core/suggest.js';
import { SERVER_TOOL_NAMES, type ServerToolName, type ServerToolSettings } from '../core/types.js';
import { UsageError, type FlagSpec } from '../core/args.js';

export const SERVER_TOOL_FLAGS = {
  'server-tools': { type: 'list', help: "Claude's server tools the model may use: web_search, web_fetch, code_execution" },
  'web-search-max-uses': { type: 'int', min: 1, max: 1000, help: 'at most N web searches per request (with --server-tools web_search)' },
  'allowed-domains': { type: 'list', help: 'web_search and web_fetch use only these domains (e.g. insee.fr,wikipedia.org)' },
  'blocked-domains': { type: 'list', help: 'web_search and web_fetch never use these domains (not with --allowed-domains)' },
} satisfies Record<string, FlagSpec>;

interface ServerToolFlags {
  'server-tools'?: string[];
  'web-search-max-uses'?: number;
  'allowed-domains'?: string[];
  'blocked-domains'?: string[];
}

export function serverToolsFromFlags(flags: ServerToolFlags): ServerToolSettings | undefined {
  const names = flags['server-tools'];
  const searching = names?.includes('web_search') ?? false;
  const domainTools = names?.filter((n) => n === 'web_search' || n === 'web_fetch') ?? [];
  if (flags['web-search-max-uses'] !== undefined && !searching) {
    throw new UsageError('--web-search-max-uses applies to the web_search server tool: add --server-tools web_search');
  }
  for (const flag of ['allowed-domains', 'blocked-domains'] as const) {
    if (flags[flag] !== undefined && domainTools.length === 0) {
      throw new UsageError(`--${flag} applies to the web_search and web_fetch server tools: add --server-tools web_search (or web_fetch)`);
    }
  }
  if (names === undefined) return undefined;
  if (names.length === 0) throw new UsageError(`--server-tools needs at least one name (${SERVER_TOOL_NAMES.join(', ')})`);
  const unknown = names.filter((n) => !(SERVER_TOOL_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    const described = unknown.map((n) => {
      const near = nearestName(n, SERVER_TOOL_NAMES);
      return `"${n}"${near ? ` (did you mean "${near}"?)` : ''}`;
    });
    throw new UsageError(`unknown server tool ${described.join(', ')} in --server-tools (valid: ${SERVER_TOOL_NAMES.join(', ')})`);
  }
  const allowed = domainList('allowed-domains', flags['allowed-domains']);
  const blocked = domainList('blocked-domains', flags['blocked-domains']);
  if (allowed && blocked) {
    throw new UsageError('--allowed-domains and --blocked-domains cannot be combined (the API takes one or the other)');
  }
  return {
    tools: [...new Set(names)] as ServerToolName[],
    ...(flags['web-search-max-uses'] !== undefined ? { webSearchMaxUses: flags['web-search-max-uses'] } : {}),
    ...(allowed ? { allowedDomains: allowed } : {}),
    ...(blocked ? { blockedDomains: blocked } : {}),
  };
}

/** Domains as the API takes them: `example.com` or `docs.example.com/path`, without a scheme. */
function domainList(flag: string, domains: string[] | undefined): string[] | undefined {
  if (domains === undefined) return undefined;
  if (domains.length === 0) throw new UsageError(`--${flag} needs at least one domain (e.g. --${flag} wikipedia.org,insee.fr)`);
  for (const d of domains) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(d)) {
      throw new UsageError(`--${flag}: "${d}" has a scheme; give the domain alone (e.g. ${d.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')})`);
    }
    if (!/^[^\s/]+\.[^\s/]+(\/\S*)?$/.test(d)) throw new UsageError(`--${flag}: "${d}" is not a domain (e.g. wikipedia.org)`);
  }
  return [...new Set(domains)];
}
