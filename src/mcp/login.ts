// `durable-agent mcp login <server>`: the OAuth authorization-code flow once, by a person, for the headless workers.
// A loopback HTTP server takes the redirect (RFC 8252), the MCP SDK's `auth()` does the rest (discovery, dynamic
// client registration or a pre-registered client, PKCE, scopes, resource indicator, the code exchange), and the
// tokens land in the token store the workers read.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { formatDuration } from '../core/duration.js';
import type { ResolvedMcpServer } from './config.js';
import { StoreOAuthProvider } from './oauth.js';
import { MemoryMcpTokenStore, type McpAuthRecord, type McpTokenStore } from './token-store.js';

export interface McpLoginOptions {
  /** Where the person is sent: `mcp login` prints it (a test fetches it and follows the redirects). */
  onAuthorizationUrl(url: URL): void | Promise<void>;
  /** How long to wait for the redirect to come back. Default 5 minutes. */
  timeoutMs?: number;
}

export interface McpLoginResult {
  record: McpAuthRecord;
  /** How many tools the server listed with the new tokens. */
  tools: number;
}

/** Bad input or a flow that did not finish: the CLI's one line, exit 2. */
export class McpLoginError extends Error {
  override name = 'McpLoginError';
}

const DEFAULT_LOGIN_TIMEOUT_MS = 5 * 60_000;

export async function mcpLogin(server: ResolvedMcpServer, store: McpTokenStore, options: McpLoginOptions): Promise<McpLoginResult> {
  if (server.kind !== 'http' || !server.config.oauth) {
    const why = server.kind !== 'http' ? 'is a stdio server (it needs no login)' : server.config.clientCredentials ? 'uses clientCredentials (no login: the workers get tokens themselves)' : 'has no "oauth" in its config';
    throw new McpLoginError(`mcpServers.${server.name} ${why}${server.kind === 'http' && !server.config.clientCredentials ? ': add oauth: true to log in with OAuth' : ''}`);
  }
  const oauth = server.config.oauth === true ? {} : server.config.oauth;
  const redirect = await listenForRedirect(oauth.redirectPort ?? 0);
  try {
    // The flow runs on a copy: the workers keep the tokens they have until this login has new ones (an abandoned,
    // timed-out or wrong-account login logs nobody out).
    const staged = new MemoryMcpTokenStore();
    const existing = await store.load(server.name);
    if (existing) await staged.save(server.name, existing);
    await forgetTokens(server.name, server.url.href, redirect.url, staged);
    const provider = new StoreOAuthProvider(server.name, server.url, oauth, staged, {
      redirectUrl: redirect.url,
      onAuthorizationUrl: options.onAuthorizationUrl,
    });
    const transport = () => new StreamableHTTPClientTransport(server.url, { authProvider: provider, requestInit: { headers: server.config.headers ?? {} } });
    const codeFromBrowser = async (): Promise<string> => {
      const { code, state } = await redirect.next(options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS);
      if (provider.lastState !== undefined && state !== provider.lastState) {
        throw new McpLoginError('the redirect came back with another state than the one sent (a stale or forged redirect): run mcp login again');
      }
      return code;
    };
    let tools: number | undefined;
    const stepUp = (await staged.load(server.name))?.scopeWanted;
    if (stepUp) {
      // A worker met a server that wants more scope: ask for that scope now (auth() takes it over the server's hints).
      if ((await auth(provider, { serverUrl: server.url, scope: stepUp })) === 'REDIRECT') {
        await auth(provider, { serverUrl: server.url, authorizationCode: await codeFromBrowser() });
      }
    } else {
      // The server's own 401 starts it: its WWW-Authenticate names the metadata and the scope.
      const first = transport();
      tools = await listTools(first).catch((err: unknown) => {
        if (err instanceof UnauthorizedError) return undefined; // sent to the browser: wait for the redirect
        throw err;
      });
      if (tools === undefined) await first.finishAuth(await codeFromBrowser());
    }
    tools ??= await listTools(transport());
    const stored = await staged.load(server.name);
    if (!stored?.tokens) throw new McpLoginError(`MCP server "${server.name}" answered without asking for authorization: no tokens were stored`);
    const { scopeWanted: _done, ...record } = stored;
    await store.save(server.name, record);
    return { record, tools };
  } finally {
    await redirect.close();
  }
}

/** A new login starts from no tokens; a dynamic registration made for another redirect URI is dropped too (the
 * authorization server would refuse the new one). */
async function forgetTokens(name: string, url: string, redirectUrl: string, store: McpTokenStore): Promise<void> {
  const record = await store.load(name);
  if (!record) return;
  if (record.url !== url) {
    await store.save(name, { url, savedAt: Date.now() });
    return;
  }
  const { tokens: _t, expiresAt: _e, clientInformation, ...rest } = record;
  await store.save(name, { ...rest, ...(record.redirectUrl === redirectUrl && clientInformation ? { clientInformation } : {}) });
}

async function listTools(transport: StreamableHTTPClientTransport): Promise<number> {
  const client = new Client({ name: 'durable-agent', version: '0.1.0' }, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: 30_000 });
    return (await client.listTools(undefined, { timeout: 30_000 })).tools.length;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** A loopback server on 127.0.0.1 for the authorization server's redirect: `/callback?code=…&state=…`. */
async function listenForRedirect(port: number) {
  let settle: { resolve(v: { code: string; state: string | undefined }): void; reject(e: Error): void } | undefined;
  const arrived = new Promise<{ code: string; state: string | undefined }>((resolve, reject) => (settle = { resolve, reject }));
  arrived.catch(() => undefined);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    res.writeHead(error || !code ? 400 : 200, { 'content-type': 'text/plain; charset=utf-8' });
    if (error || !code) {
      res.end('durable-agent: the authorization did not succeed; see the terminal.\n');
      const description = url.searchParams.get('error_description');
      settle?.reject(new McpLoginError(`the authorization server refused the login: ${error ?? 'no code in the redirect'}${description ? ` (${description})` : ''}`));
      return;
    }
    res.end('durable-agent: authorized. You can close this tab.\n');
    settle?.resolve({ code, state: url.searchParams.get('state') ?? undefined });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new McpLoginError(`the redirect port ${port} is in use: free it, or change oauth.redirectPort`) : err),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/callback`,
    next(timeoutMs: number) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new McpLoginError(`no redirect came back within ${formatDuration(timeoutMs)}: run mcp login again and open the URL`)), timeoutMs);
      });
      return Promise.race([arrived, timeout]).finally(() => clearTimeout(timer));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  };
}
