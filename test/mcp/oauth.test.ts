// OAuth for a streamable-HTTP MCP server, end to end: a real authorization server in process (the MCP SDK's
// server-side auth), `durable-agent mcp login` as a user runs it (its browser step driven by fetching the printed
// URL and following the redirects), then a real worker reading the tokens the login stored: it calls the
// protected tool, refreshes an expired token with no human, and a revoked token gives the model an is_error
// telling it to have someone run `mcp login` again, on the first attempt (no retry loop).
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAgentResult } from '../../src/client/index.js';
import { resolveMcpServers } from '../../src/mcp/config.js';
import { connectMcpServers } from '../../src/mcp/tools.js';
import { FileMcpTokenStore, MemoryMcpTokenStore } from '../../src/mcp/token-store.js';
import { mcpLogin } from '../../src/mcp/login.js';
import { reply, text, toolUse, type Script } from '../../src/scripted/index.js';
import { expectExit, useCli } from '../helpers/cli.js';
import { lastToolResults, startRun, useTestEnv, withAgent } from '../helpers/harness.js';
import { decodedPayloads } from '../helpers/mcp.js';
import { startOAuthFixture, type OAuthFixture } from '../helpers/oauth-server.js';

const env = useTestEnv();
const cli = useCli();

let dir: string;
let oauth: OAuthFixture;
let config: string;
let tokens: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'durable-agent-oauth-'));
  oauth = await startOAuthFixture();
  config = path.join(dir, 'durable-agent.config.mjs');
  tokens = path.join(dir, 'state', 'mcp-tokens.json');
  await writeFile(config, `export default { mcpServers: { docs: { url: ${JSON.stringify(oauth.url)}, oauth: true } } };\n`);
});
afterAll(async () => {
  await oauth?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `mcp login docs`, its browser step done by fetching the printed URL and following the redirects. */
async function login(extra: Record<string, string> = {}): Promise<string> {
  const session = cli.session();
  const child = session.spawn(['mcp', 'login', 'docs', '--config', config], { AGENT_MCP_TOKENS: tokens, ...extra });
  const [, url] = await child.waitForStderr(/^\s+(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m);
  const browser = await fetch(url, { redirect: 'follow' });
  expect(await browser.text()).toMatch(/authorized/);
  const exit = await child.exited;
  expectExit(exit, 0);
  return exit.stdout;
}

const lastLine = (s: string) => s.trim().split('\n').pop();

const whoamiTwice: Script = [reply([toolUse('docs__whoami', {}), toolUse('docs__whoami', {})]), reply([text('done')])];
const bothSay = (requests: Array<{ body: unknown }>) => lastToolResults(requests).map((r) => [r.content, r.is_error ?? false]);

describe('OAuth for streamable-HTTP MCP servers', () => {
  it('mcp login stores tokens (mode 0600) that a worker uses; an expired token is refreshed and a revoked one is an is_error asking for mcp login', { timeout: 90_000 }, async () => {
    expect(await login()).toMatch(/^Authorized MCP server "docs": 1 tool; authorized: access token until \S+, refreshed by the workers/);
    expect((await stat(tokens)).mode & 0o777).toBe(0o600);

    const store = new FileMcpTokenStore(tokens);
    const mcpServers = { docs: { url: oauth.url, oauth: true as const } };
    // Every run (the script answers by turn) calls the tool twice at once: the two calls meet an expired token together.
    await withAgent(env, { script: whoamiTwice, mcpServers, mcpTokenStore: store }, async (h) => {
      // 1. The tokens from the login reach the protected tool.
      const first = await startRun(h, 'who am I', { tools: ['docs__*'] });
      expect(await getAgentResult(env.client, first)).toMatchObject({ status: 'completed' });
      expect(bothSay(h.model.requests)).toEqual([['hello, registered client', false], ['hello, registered client', false]]);
      expect(oauth.calls).toHaveLength(2);

      // 2. Expired: the worker refreshes with the refresh token, once for both calls (it rotates: a second refresh with
      // it would be refused), writes the new tokens back, and both calls succeed.
      const before = (await store.load('docs'))!.tokens!.access_token;
      oauth.expireAccessTokens();
      const second = await startRun(h, 'who am I now', { tools: ['docs__*'] });
      expect(await getAgentResult(env.client, second)).toMatchObject({ status: 'completed' });
      expect(bothSay(h.model.requests)).toEqual([['hello, registered client', false], ['hello, registered client', false]]);
      expect(oauth.refreshes).toBe(1);
      expect((await store.load('docs'))!.tokens!.access_token).not.toBe(before);

      // 3. Revoked (access and refresh token): an is_error for the model, on the first attempt.
      oauth.revokeAll();
      const third = await startRun(h, 'who am I after revocation', { tools: ['docs__*'] });
      expect(await getAgentResult(env.client, third)).toMatchObject({ status: 'completed' });
      for (const result of lastToolResults(h.model.requests)) {
        expect(result.is_error).toBe(true);
        expect(result.content).toMatch(/MCP server "docs" .*run `durable-agent mcp login docs` again/);
      }
      const history = await env.client.workflow.getHandle(third).fetchHistory();
      const attempts = (history.events ?? []).flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt] : []));
      expect(attempts.every((a) => a === 1)).toBe(true);

      // No token in any run's history, decoded payloads included.
      for (const id of [first, second, third]) {
        const events = await env.client.workflow.getHandle(id).fetchHistory();
        const everything = JSON.stringify(events) + decodedPayloads(events);
        for (const token of oauth.issued) expect(everything).not.toContain(token);
      }
    });

    // The refused tokens are gone from the store: status says to log in; a new login works again.
    const status = await cli.session().cli(['mcp', 'status', '--config', config, '--json'], { AGENT_MCP_TOKENS: tokens });
    expectExit(status, 0);
    expect(JSON.parse(status.stdout)).toMatchObject({ servers: [{ server: 'docs', kind: 'oauth', authorized: false }] });
    expect(await login()).toMatch(/^Authorized MCP server "docs"/);
    const plain = await readFile(tokens, 'utf8');
    for (const token of oauth.issued.slice(0, -2)) expect(plain).not.toContain(token);
  });

  it('a login abandoned before its browser step leaves the tokens the workers use as they were', async () => {
    await login();
    const store = new FileMcpTokenStore(tokens);
    const before = (await store.load('docs'))?.tokens?.access_token;
    expect(before).toBeTruthy();
    const [server] = resolveMcpServers({ docs: { url: oauth.url, oauth: true } });
    await expect(mcpLogin(server, store, { onAuthorizationUrl: async () => {}, timeoutMs: 500 })).rejects.toThrow();
    expect((await store.load('docs'))?.tokens?.access_token).toBe(before);
  });

  it('a worker with no tokens for an oauth server does not start, and registers no client of its own', async () => {
    const registered = oauth.registrations;
    await expect(connectMcpServers({ docs: { url: oauth.url, oauth: true } }, { tokenStore: new MemoryMcpTokenStore(), log: () => {} })).rejects.toThrow(
      `MCP server "docs" (${oauth.url}) did not start: MCP server "docs" (${oauth.url}) is not authorized yet (no tokens in memory): someone must run \`durable-agent mcp login docs\` again`,
    );
    expect(oauth.registrations).toBe(registered);
  });

  it('mcp refuses an unknown action or server and a server without oauth, in one line, exit 2', async () => {
    const other = path.join(dir, 'other.config.mjs');
    await writeFile(other, `export default { mcpServers: { docs: { url: ${JSON.stringify(oauth.url)}, oauth: true }, plain: { url: ${JSON.stringify(oauth.url)} } } };\n`);
    const session = cli.session({ AGENT_MCP_TOKENS: path.join(dir, 'unused.json') });
    const cases: Array<[string[], string]> = [
      [['mcp', 'logon', 'docs'], 'error: unknown action "logon": give login, logout or status'],
      [['mcp', 'login', 'doc'], 'error: no MCP server "doc" in the config (did you mean docs?) (servers: docs, plain)'],
      [['mcp', 'login', 'plain'], 'error: mcpServers.plain has no "oauth" in its config: add oauth: true to log in with OAuth'],
    ];
    for (const [args, line] of cases) {
      const exit = await session.cli([...args, '--config', other]);
      expectExit(exit, 2);
      expect(exit.stderr).toContain(line);
    }
  });

  it('encrypts the store with AGENT_ENCRYPTION_KEYS, and an undecryptable store is one line, exit 2', async () => {
    const key = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
    await rm(tokens, { force: true });
    await login({ AGENT_ENCRYPTION_KEYS: key });
    const file = await readFile(tokens, 'utf8');
    expect(JSON.parse(file)).toMatchObject({ version: 1, encrypted: { keyId: 'k1' } });
    for (const token of oauth.issued) expect(file).not.toContain(token);
    const ok = await cli.session().cli(['mcp', 'status', '--config', config], { AGENT_MCP_TOKENS: tokens, AGENT_ENCRYPTION_KEYS: key });
    expectExit(ok, 0);
    expect(ok.stdout).toMatch(/^docs {2}authorized: access token until/);
    const wrong = await cli.session().cli(['mcp', 'status', '--config', config], { AGENT_MCP_TOKENS: tokens, AGENT_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 9).toString('base64')}` });
    expectExit(wrong, 2);
    expect(lastLine(wrong.stderr)).toBe(`error: the MCP token store ${tokens} does not decrypt with key "k1" of AGENT_ENCRYPTION_KEYS: give the key it was written with`);
    const none = await cli.session().cli(['mcp', 'status', '--config', config], { AGENT_MCP_TOKENS: tokens });
    expectExit(none, 2);
    expect(lastLine(none.stderr)).toBe(`error: the MCP token store ${tokens} is encrypted (key id "k1") and AGENT_ENCRYPTION_KEYS is not set: set it to the keys it was written with`);
    const logout = await cli.session().cli(['mcp', 'logout', 'docs', '--config', config], { AGENT_MCP_TOKENS: tokens, AGENT_ENCRYPTION_KEYS: key });
    expectExit(logout, 0);
    expect(logout.stdout).toMatch(/^Forgot the tokens of MCP server "docs"/);
  });
});
