// `mcp login <server>`, `mcp logout <server>`, `mcp status`: the OAuth authorizations of the config's streamable-HTTP
// MCP servers, kept in the token store the workers read (src/mcp/token-store.ts). No token is ever printed.
import type { ResolvedMcpServer } from '../../mcp/config.js';
import { defaultMcpTokenStore, type McpAuthRecord } from '../../mcp/token-store.js';
import { nearestName } from '../../core/suggest.js';
import { expectPositionals, UsageError, type FlagSpec, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { CONFIG_FLAG, loadCliConfig, requireMcpEnvironment } from '../config.js';
import { logLine } from '../log.js';
import { printJson, printText } from '../output.js';
import { durationFlag } from '../settings.js';

const USAGE = 'mcp login <server> | mcp logout <server> | mcp status [--config FILE] [--json]';

const MCP_FLAGS = {
  ...CONFIG_FLAG,
  json: { type: 'boolean', help: 'status: print exactly one JSON document' },
  timeout: { type: 'string', value: 'DURATION', help: 'login: how long to wait for the browser to come back (default 5m)' },
} satisfies Record<string, FlagSpec>;

export const mcp = defineCommand({
  usage: USAGE,
  description: `The OAuth authorization of the config's streamable-HTTP MCP servers (those with "oauth"), kept in the token
store the workers read (AGENT_MCP_TOKENS, else .durable-agent/mcp-tokens.json; mode 0600, encrypted with
AGENT_ENCRYPTION_KEYS when set). login runs the authorization-code flow once: it prints a URL to open in a
browser and listens on a loopback port for the redirect; workers then refresh the tokens themselves. logout
forgets a server's tokens; status shows which servers are authorized, and until when.`,
  flags: MCP_FLAGS,
  examples: ['mcp login github --config durable-agent.config.mjs', 'mcp status', 'mcp logout github'],
  run: mcpCommand,
});

async function mcpCommand({ flags, positionals }: Parsed<typeof MCP_FLAGS>): Promise<number> {
  const [action, ...rest] = positionals;
  if (action !== 'login' && action !== 'logout' && action !== 'status') {
    throw new UsageError(`${action === undefined ? 'missing the action' : `unknown action "${action}"`}: give login, logout or status\nusage: ${USAGE}`);
  }
  const { config } = await loadCliConfig(flags.config);
  const servers = requireMcpEnvironment(config);
  const store = defaultMcpTokenStore();
  if (action === 'status') {
    expectPositionals(rest, [], USAGE);
    const records = await store.list();
    const rows = servers.filter((s) => s.kind === 'http' && (s.config.oauth || s.config.clientCredentials)).map((s) => statusOf(s, records[s.name]));
    if (flags.json) printJson({ store: store.where, servers: rows });
    else printText(rows.length === 0 ? 'No MCP server of the config uses OAuth.\n' : `${rows.map(statusLine).join('\n')}\n`);
    return 0;
  }
  const [name] = expectPositionals(rest, ['server'], USAGE);
  const server = servers.find((s) => s.name === name);
  if (!server) {
    const guess = nearestName(name, servers.map((s) => s.name));
    throw new UsageError(`no MCP server "${name}" in the config${guess ? ` (did you mean ${guess}?)` : ''} (servers: ${servers.map((s) => s.name).join(', ') || 'none'})`);
  }
  if (action === 'logout') {
    const removed = await store.delete(name);
    printText(removed ? `Forgot the tokens of MCP server "${name}" (${store.where}).\n` : `MCP server "${name}" had no tokens in ${store.where}.\n`);
    return 0;
  }
  const timeoutMs = flags.timeout === undefined ? undefined : durationFlag('timeout', flags.timeout);
  const { mcpLogin } = await import('../../mcp/login.js'); // the MCP SDK, on use
  const result = await mcpLogin(server, store, {
    timeoutMs,
    onAuthorizationUrl(url) {
      logLine(`Open this URL in a browser to authorize MCP server "${name}" (waiting for its redirect to 127.0.0.1):`);
      logLine(`  ${url.href}`);
    },
  });
  const status = statusOf(server, result.record);
  printText(`Authorized MCP server "${name}": ${result.tools} tool${result.tools === 1 ? '' : 's'}; ${statusLine(status).replace(/^\S+\s+/, '')}\n`);
  return 0;
}

interface ServerStatus {
  server: string;
  url: string;
  kind: 'oauth' | 'clientCredentials';
  authorized: boolean;
  expiresAt?: string;
  refreshable?: boolean;
  scope?: string;
}

function statusOf(server: ResolvedMcpServer, record: McpAuthRecord | undefined): ServerStatus {
  const url = server.kind === 'http' ? server.url.href : '';
  if (server.kind === 'http' && server.config.clientCredentials) return { server: server.name, url, kind: 'clientCredentials', authorized: true };
  const tokens = record && record.url === url ? record.tokens : undefined;
  return {
    server: server.name,
    url,
    kind: 'oauth',
    authorized: !!tokens,
    ...(tokens && record?.expiresAt !== undefined ? { expiresAt: new Date(record.expiresAt).toISOString() } : {}),
    ...(tokens ? { refreshable: !!tokens.refresh_token } : {}),
    ...(tokens?.scope ? { scope: tokens.scope } : {}),
  };
}

function statusLine(s: ServerStatus): string {
  if (s.kind === 'clientCredentials') return `${s.server}  client credentials: the workers get their own tokens (no login)`;
  if (!s.authorized) return `${s.server}  not authorized: run durable-agent mcp login ${s.server}`;
  const until = s.expiresAt ? `access token until ${s.expiresAt}` : 'access token with no stated expiry';
  const expired = s.expiresAt && Date.parse(s.expiresAt) < Date.now() ? ' (expired)' : '';
  return `${s.server}  authorized: ${until}${expired}, ${s.refreshable ? 'refreshed by the workers' : 'no refresh token: log in again when it expires'}${s.scope ? `; scope ${s.scope}` : ''}`;
}
