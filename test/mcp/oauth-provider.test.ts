// The worker's OAuthClientProvider over the token store: what the MCP SDK's auth() reads and writes, and what a
// headless worker does where auth() would send a person to a browser.
import { describe, expect, it } from 'vitest';
import { resolveMcpServers } from '../../src/mcp/config.js';
import { authorizationFailureText, coalescedRefreshFetch, McpLoginRequired, StoreOAuthProvider, workerAuthProvider } from '../../src/mcp/oauth.js';
import { MemoryMcpTokenStore } from '../../src/mcp/token-store.js';

const url = new URL('https://mcp.example.com/mcp');
const tokens = (access: string) => ({ access_token: access, token_type: 'Bearer', refresh_token: `r-${access}`, expires_in: 60 });

describe('StoreOAuthProvider', () => {
  it('keeps tokens, registration and discovery in the store, with the expiry of the access token', async () => {
    const store = new MemoryMcpTokenStore();
    const provider = new StoreOAuthProvider('docs', url, {}, store);
    await provider.saveClientInformation({ client_id: 'c1' });
    const before = Date.now();
    await provider.saveTokens(tokens('a1'));
    const saved = (await store.load('docs'))!;
    expect(saved).toMatchObject({ url: url.href, clientInformation: { client_id: 'c1' }, tokens: { access_token: 'a1' } });
    expect(saved.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    // Another worker reads the same store.
    expect(await new StoreOAuthProvider('docs', url, {}, store).tokens()).toMatchObject({ access_token: 'a1' });
  });

  it('treats tokens stored for another URL as none', async () => {
    const store = new MemoryMcpTokenStore();
    await store.save('docs', { url: 'https://old.example.com/mcp', tokens: tokens('a1'), savedAt: 1 });
    const provider = new StoreOAuthProvider('docs', url, {}, store);
    expect(await provider.tokens()).toBeUndefined();
    await expect(provider.requireTokens()).rejects.toThrow(new McpLoginRequired('docs', `(${url.href}) is not authorized yet (no tokens in memory)`));
  });

  it('drops refused tokens, but not the ones another worker refreshed meanwhile', async () => {
    const store = new MemoryMcpTokenStore();
    const mine = new StoreOAuthProvider('docs', url, {}, store);
    await mine.saveTokens(tokens('a1'));
    expect(await mine.tokens()).toMatchObject({ access_token: 'a1' });
    await new StoreOAuthProvider('docs', url, {}, store).saveTokens(tokens('a2')); // another worker refreshed
    await mine.invalidateCredentials('tokens');
    expect((await store.load('docs'))!.tokens).toMatchObject({ access_token: 'a2' });
    expect(await mine.tokens()).toMatchObject({ access_token: 'a2' });
    await mine.invalidateCredentials('tokens');
    expect((await store.load('docs'))!.tokens).toBeUndefined();
  });

  it('in a worker, throws McpLoginRequired where auth() would send a person to the browser', async () => {
    const provider = new StoreOAuthProvider('docs', url, {}, new MemoryMcpTokenStore());
    await expect(provider.redirectToAuthorization(new URL('https://as.example.com/authorize'))).rejects.toThrow(
      'MCP server "docs" refused its stored authorization and it could not be refreshed: someone must run `durable-agent mcp login docs` again',
    );
    const seen: URL[] = [];
    const login = new StoreOAuthProvider('docs', url, {}, new MemoryMcpTokenStore(), { redirectUrl: 'http://127.0.0.1:5000/callback', onAuthorizationUrl: (u) => void seen.push(u) });
    await login.redirectToAuthorization(new URL('https://as.example.com/authorize?x=1'));
    expect(seen.map(String)).toEqual(['https://as.example.com/authorize?x=1']);
    expect(login.clientMetadata).toMatchObject({ redirect_uris: ['http://127.0.0.1:5000/callback'], grant_types: ['authorization_code', 'refresh_token'] });
  });

  it('in a worker, keeps the larger scope a server asks for (a step-up) for the next login, and says so', async () => {
    const store = new MemoryMcpTokenStore();
    const provider = new StoreOAuthProvider('docs', url, {}, store);
    await provider.saveTokens({ ...tokens('a1'), scope: 'mcp:basic' });
    await provider.tokens();
    await expect(provider.redirectToAuthorization(new URL('https://as.example.com/authorize?scope=mcp%3Abasic+mcp%3Awrite'))).rejects.toThrow(
      'MCP server "docs" asks for the scope "mcp:basic mcp:write", more than its login gave ("mcp:basic"): someone must run `durable-agent mcp login docs` again',
    );
    expect(await store.load('docs')).toMatchObject({ scopeWanted: 'mcp:basic mcp:write' });
  });

  it('presents a pre-registered client until the SDK stores it bound to its issuer', async () => {
    const store = new MemoryMcpTokenStore();
    const provider = new StoreOAuthProvider('docs', url, { clientId: 'pre', clientSecret: 's' }, store);
    expect(await provider.clientInformation()).toEqual({ client_id: 'pre', client_secret: 's' });
    await provider.saveClientInformation({ client_id: 'pre', client_secret: 's', issuer: 'https://as.example.com' } as never);
    expect(await provider.clientInformation()).toMatchObject({ issuer: 'https://as.example.com' });
  });
});

describe('the auth provider of a server entry', () => {
  it('is the store for oauth, the SDK client-credentials providers for clientCredentials, none otherwise', () => {
    const store = new MemoryMcpTokenStore();
    const servers = resolveMcpServers(
      {
        docs: { url: url.href, oauth: true },
        crm: { url: url.href, clientCredentials: { clientId: 'agent', clientSecret: '${CRM_SECRET}' } },
        jwt: { url: url.href, clientCredentials: { clientId: 'agent', privateKey: '${KEY}', algorithm: 'ES256' } },
        plain: { url: url.href },
      },
      { CRM_SECRET: 'shh', KEY: 'pem' },
    );
    let opened = 0;
    const [docs, crm, jwt, plain] = servers.map((s) => workerAuthProvider(s, () => (opened++, store)));
    expect(opened).toBe(1); // only the oauth server reads the token store
    expect(docs).toBeInstanceOf(StoreOAuthProvider);
    expect(crm?.constructor.name).toBe('ClientCredentialsProvider');
    expect(jwt?.constructor.name).toBe('PrivateKeyJwtProvider');
    expect(plain).toBeUndefined();
    expect(servers[1]).toMatchObject({ config: { clientCredentials: { clientSecret: 'shh' } } });
    expect(authorizationFailureText(servers[1], new Error('x'))).toBe('MCP server "crm": it refused our authorization: check mcpServers.crm.clientCredentials and the variables they name');
  });

  it('refuses oauth and clientCredentials together, credentials without one secret, and an unset ${NAME}', () => {
    const u = url.href;
    expect(() => resolveMcpServers({ s: { url: u, oauth: true, clientCredentials: { clientId: 'a', clientSecret: 'b' } } }, {})).toThrow(
      'mcpServers.s: give either "oauth" (a person logs in with durable-agent mcp login) or "clientCredentials" (no human step), not both',
    );
    expect(() => resolveMcpServers({ s: { url: u, clientCredentials: { clientId: 'a' } } }, {})).toThrow('mcpServers.s.clientCredentials: give either clientSecret or privateKey, not neither');
    expect(() => resolveMcpServers({ s: { url: u, clientCredentials: { clientId: 'a', clientSecret: '${NOPE}' } } }, {})).toThrow(
      'mcpServers.s.clientCredentials.clientSecret refers to ${NOPE}, but the environment variable NOPE is not set on this worker; set it',
    );
    expect(() => resolveMcpServers({ s: { url: u, oauth: { redirectPort: 70_000 } } }, {})).toThrow('mcpServers.s.oauth.redirectPort: expected a port number');
  });
});

describe('coalescedRefreshFetch', () => {
  it('sends concurrent refreshes with one refresh token as one request, and everything else as it is', async () => {
    const sent: string[] = [];
    const base = (async (_url: unknown, init?: RequestInit) => {
      sent.push(String(init?.body));
      await new Promise((r) => setTimeout(r, 20));
      return new Response(JSON.stringify({ access_token: `a${sent.length}`, token_type: 'Bearer' }), { status: 200 });
    }) as typeof fetch;
    const f = coalescedRefreshFetch(base);
    const refresh = () => f('https://as.example.com/token', { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r1' }) });
    const answers = await Promise.all([refresh(), refresh(), refresh()]);
    expect(await Promise.all(answers.map((r) => r.json()))).toEqual([1, 2, 3].map(() => ({ access_token: 'a1', token_type: 'Bearer' })));
    expect((await (await refresh()).json()) as unknown).toEqual({ access_token: 'a1', token_type: 'Bearer' }); // just after: the same answer
    await f('https://as.example.com/token', { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'r2' }) });
    await f('https://mcp.example.com/mcp', { method: 'POST', body: '{}' });
    await f('https://mcp.example.com/mcp', { method: 'POST', body: '{}' });
    expect(sent).toEqual(['grant_type=refresh_token&refresh_token=r1', 'grant_type=refresh_token&refresh_token=r2', '{}', '{}']);
  });
});
