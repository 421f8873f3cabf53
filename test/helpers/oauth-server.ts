// A real OAuth-protected MCP server, in process, on 127.0.0.1: the MCP SDK's own server-side auth (mcpAuthRouter:
// metadata, dynamic client registration, /authorize, /token with PKCE, /revoke; requireBearerAuth on /mcp) over a
// small in-memory OAuthServerProvider whose /authorize approves at once (the "browser" is a fetch that follows
// the redirects). Tests expire or revoke its tokens and count its refreshes.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

interface Grant {
  clientId: string;
  scopes: string[];
  revoked: boolean;
}
interface AccessToken {
  grant: Grant;
  expiresAt: number;
}

export interface OAuthFixture {
  /** The MCP endpoint (`http://127.0.0.1:PORT/mcp`). */
  url: string;
  /** Every access and refresh token handed out (to search history and logs for). */
  issued: string[];
  refreshes: number;
  /** Dynamic client registrations. */
  registrations: number;
  /** Tool calls that reached the tool, with the client id of their token. */
  calls: string[];
  /** Makes every access token handed out so far expired (the refresh tokens stay good). */
  expireAccessTokens(): void;
  /** Revokes every grant: access and refresh tokens alike. */
  revokeAll(): void;
  stop(): Promise<void>;
}

export async function startOAuthFixture(options: { accessTtlMs?: number } = {}): Promise<OAuthFixture> {
  const accessTtlMs = options.accessTtlMs ?? 60 * 60_000;
  const clients = new Map<string, OAuthClientInformationFull>();
  const codes = new Map<string, { grant: Grant; challenge: string; redirectUri: string }>();
  const access = new Map<string, AccessToken>();
  const refresh = new Map<string, Grant>();
  const fixture: Omit<OAuthFixture, 'url' | 'stop'> = {
    issued: [],
    refreshes: 0,
    registrations: 0,
    calls: [],
    expireAccessTokens: () => {
      for (const token of access.values()) token.expiresAt = Date.now() - 1000;
    },
    revokeAll: () => {
      for (const token of access.values()) token.grant.revoked = true;
      for (const grant of refresh.values()) grant.revoked = true;
    },
  };
  const issue = (grant: Grant): OAuthTokens => {
    const accessToken = `at-${randomUUID()}`;
    const refreshToken = `rt-${randomUUID()}`;
    access.set(accessToken, { grant, expiresAt: Date.now() + accessTtlMs });
    refresh.set(refreshToken, grant);
    fixture.issued.push(accessToken, refreshToken);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: Math.round(accessTtlMs / 1000), refresh_token: refreshToken, scope: grant.scopes.join(' ') };
  };

  const clientsStore: OAuthRegisteredClientsStore = {
    getClient: (id) => clients.get(id),
    registerClient: (client) => {
      const full = { ...client, client_id: `client-${randomUUID()}`, client_id_issued_at: Math.floor(Date.now() / 1000) } as OAuthClientInformationFull;
      clients.set(full.client_id, full);
      fixture.registrations++;
      return full;
    },
  };
  const provider: OAuthServerProvider = {
    clientsStore,
    authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response) {
      // The consent screen, approved at once.
      const code = `code-${randomUUID()}`;
      codes.set(code, { grant: { clientId: client.client_id, scopes: params.scopes ?? [], revoked: false }, challenge: params.codeChallenge, redirectUri: params.redirectUri });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      res.redirect(302, target.href);
      return Promise.resolve();
    },
    challengeForAuthorizationCode(_client, code) {
      const entry = codes.get(code);
      if (!entry) throw new InvalidGrantError('unknown authorization code');
      return Promise.resolve(entry.challenge);
    },
    exchangeAuthorizationCode(client, code) {
      const entry = codes.get(code);
      codes.delete(code);
      if (!entry || entry.grant.clientId !== client.client_id) throw new InvalidGrantError('unknown authorization code');
      return Promise.resolve(issue(entry.grant));
    },
    exchangeRefreshToken(client, refreshToken) {
      const grant = refresh.get(refreshToken);
      if (!grant || grant.revoked || grant.clientId !== client.client_id) throw new InvalidGrantError('the refresh token is revoked or unknown');
      refresh.delete(refreshToken); // rotated
      fixture.refreshes++;
      return Promise.resolve(issue(grant));
    },
    verifyAccessToken(token): Promise<AuthInfo> {
      const found = access.get(token);
      if (!found || found.grant.revoked) throw new InvalidTokenError('the access token is revoked or unknown');
      return Promise.resolve({ token, clientId: found.grant.clientId, scopes: found.grant.scopes, expiresAt: Math.floor(found.expiresAt / 1000) });
    },
  };

  const app = express();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl, scopesSupported: ['docs:read'] }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.post('/mcp', bearer, express.json(), async (req, res) => {
    const mcp = new McpServer({ name: 'oauth-fixture', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says which OAuth client called.', inputSchema: {} }, (_args, extra) => {
      const clientId = extra.authInfo?.clientId ?? 'nobody';
      fixture.calls.push(clientId);
      return { content: [{ type: 'text', text: `hello, ${clientId.startsWith('client-') ? 'registered client' : clientId}` }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.all('/mcp', bearer, (_req, res) => {
    res.status(405).set('allow', 'POST').end();
  });

  return Object.assign(fixture, {
    url: mcpUrl.href,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections()),
  }) as OAuthFixture;
}
