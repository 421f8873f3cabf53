// OAuth for streamable-HTTP MCP servers, with the MCP SDK's own client auth: discovery, registration, PKCE, scopes,
// refresh and resource indicators are `auth()`'s; this file only says where its state lives (the token store) and
// what a headless worker does when a person is needed (it fails the call, telling the model to have someone run
// `durable-agent mcp login <server>` again). Tokens never leave the store and the Authorization header.
import { randomBytes } from 'node:crypto';
import { UnauthorizedError, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuthConfig } from '../config/types.js';
import type { ResolvedMcpServer } from './config.js';
import type { McpAuthRecord, McpTokenStore } from './token-store.js';

/** The redirect URI a worker's provider names when the store has none: it never redirects anyone. */
const PLACEHOLDER_REDIRECT = 'http://127.0.0.1/callback';

/** A person has to authorize (again): no tokens, or tokens the server refused and that could not be refreshed. */
export class McpLoginRequired extends Error {
  override name = 'McpLoginRequired';
  constructor(readonly server: string, why: string) {
    super(`MCP server "${server}" ${why}: someone must run \`durable-agent mcp login ${server}\` again`);
  }
}

/** How `mcp login` drives the provider: the loopback redirect URI, and what to do with the authorization URL. */
export interface InteractiveLogin {
  redirectUrl: string;
  onAuthorizationUrl(url: URL): void | Promise<void>;
}

/** An OAuthClientProvider whose state is one server's record in a McpTokenStore. Without `interactive` (a worker)
 * it never sends anyone to a browser: where the SDK would, it throws McpLoginRequired. */
export class StoreOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  #record: McpAuthRecord | undefined;
  #codeVerifier: string | undefined;
  /** The access token `tokens()` handed out last: invalidating means these, not ones another worker saved since. */
  #lastAccessToken: string | undefined;
  #state: string | undefined;

  constructor(
    readonly server: string,
    readonly url: URL,
    private readonly config: McpOAuthConfig,
    private readonly store: McpTokenStore,
    private readonly interactive?: InteractiveLogin,
  ) {
    if (config.clientMetadataUrl) this.clientMetadataUrl = config.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.interactive?.redirectUrl ?? this.#record?.redirectUrl ?? PLACEHOLDER_REDIRECT;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'durable-agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(this.config.scope ? { scope: this.config.scope } : {}),
    };
  }

  /** The state parameter sent with the authorization request (checked by `mcp login` when the redirect comes back). */
  state(): string {
    this.#state = randomBytes(16).toString('base64url');
    return this.#state;
  }

  get lastState(): string | undefined {
    return this.#state;
  }

  /** Throws McpLoginRequired when the store holds no tokens for this server (at this URL): a worker then does not
   * start a registration or a flow it cannot finish. */
  async requireTokens(): Promise<void> {
    const record = await this.#load();
    if (!record?.tokens) throw new McpLoginRequired(this.server, `(${this.url.href}) is not authorized yet (no tokens in ${this.store.where})`);
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const record = await this.#load();
    if (record?.clientInformation) return record.clientInformation;
    if (this.config.clientId) {
      return { client_id: this.config.clientId, ...(this.config.clientSecret ? { client_secret: this.config.clientSecret } : {}) };
    }
    return undefined;
  }

  saveClientInformation(clientInformation: OAuthClientInformationMixed): Promise<void> {
    return this.#change((record) => ({ ...record, clientInformation }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const tokens = (await this.#load())?.tokens;
    this.#lastAccessToken = tokens?.access_token;
    return tokens;
  }

  saveTokens(tokens: OAuthTokens): Promise<void> {
    const now = Date.now();
    this.#lastAccessToken = tokens.access_token;
    return this.#change((record) => {
      const { expiresAt: _old, ...rest } = record;
      return {
        ...rest,
        tokens,
        ...(tokens.expires_in !== undefined ? { expiresAt: now + tokens.expires_in * 1000 } : {}),
        savedAt: now,
      };
    });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.interactive) return this.interactive.onAuthorizationUrl(authorizationUrl);
    // A worker cannot send anyone to a browser. The scope auth() wanted is kept for the next `mcp login`: when it is
    // more than the tokens have, the server asked for a step-up, and the login must ask for it too.
    const wanted = authorizationUrl.searchParams.get('scope') ?? undefined;
    const had = this.#record?.tokens?.scope;
    if (wanted) await this.#change((record) => ({ ...record, scopeWanted: wanted }));
    const has = new Set((had ?? '').split(' '));
    if (wanted && had !== undefined && !wanted.split(' ').every((scope) => has.has(scope))) {
      throw new McpLoginRequired(this.server, `asks for the scope "${wanted}", more than its login gave ("${had}")`);
    }
    throw new McpLoginRequired(this.server, 'refused its stored authorization and it could not be refreshed');
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.#codeVerifier) throw new Error('no PKCE code verifier was saved: start the login again');
    return this.#codeVerifier;
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.#load())?.discoveryState;
  }

  saveDiscoveryState(discoveryState: OAuthDiscoveryState): Promise<void> {
    return this.#change((record) => ({ ...record, discoveryState }));
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.#codeVerifier = undefined;
      return Promise.resolve();
    }
    const refused = this.#lastAccessToken;
    return this.#change((record) => {
      const next = { ...record };
      // Tokens another worker has refreshed meanwhile are not the ones that were refused: they stay.
      if ((scope === 'all' || scope === 'tokens') && next.tokens?.access_token === refused) {
        delete next.tokens;
        delete next.expiresAt;
      }
      if (scope === 'all' || scope === 'client') delete next.clientInformation;
      if (scope === 'all' || scope === 'discovery') delete next.discoveryState;
      return next;
    });
  }

  async #load(): Promise<McpAuthRecord | undefined> {
    const record = await this.store.load(this.server);
    // Tokens for another URL (the config moved the server) are no authorization for this one.
    this.#record = record && record.url === this.url.href ? record : undefined;
    return this.#record;
  }

  /** Changes the stored record in one step of the store (read, change, write with no other writer between): two
   * workers refreshing or refusing the same tokens at once each see what the other wrote. */
  async #change(change: (record: McpAuthRecord) => McpAuthRecord): Promise<void> {
    const url = this.url.href;
    const redirect = this.interactive ? { redirectUrl: this.interactive.redirectUrl } : {};
    this.#record = await this.store.update(this.server, (stored) => {
      // Tokens for another URL (the config moved the server) are no authorization for this one.
      const current = stored && stored.url === url ? stored : { url, savedAt: Date.now() };
      return change({ ...current, ...redirect });
    });
  }
}

/** The auth provider a worker's session to `server` uses, or undefined when its config asks for none. */
export function workerAuthProvider(server: ResolvedMcpServer, store: () => McpTokenStore): OAuthClientProvider | undefined {
  if (server.kind !== 'http') return undefined;
  const { oauth, clientCredentials: cc } = server.config;
  // The store is opened only for a server that uses it (opening reads AGENT_ENCRYPTION_KEYS).
  if (oauth) return new StoreOAuthProvider(server.name, server.url, oauth === true ? {} : oauth, store());
  if (!cc) return undefined;
  const common = { clientId: cc.clientId, clientName: 'durable-agent', ...(cc.scope ? { scope: cc.scope } : {}), ...(cc.issuer ? { expectedIssuer: cc.issuer } : {}) };
  if (cc.privateKey) return new PrivateKeyJwtProvider({ ...common, privateKey: cc.privateKey, algorithm: cc.algorithm ?? 'RS256' });
  return new ClientCredentialsProvider({ ...common, clientSecret: cc.clientSecret ?? '' });
}

/** Whether `err` is the server (or its authorization server) refusing this client's authorization, as opposed to
 * being away: the call then fails with a message for the model, and is not retried. */
export function isAuthorizationFailure(err: unknown): boolean {
  return (
    err instanceof McpLoginRequired ||
    err instanceof UnauthorizedError ||
    err instanceof OAuthError ||
    (err instanceof StreamableHTTPError && (err.code === 401 || err.code === 403))
  );
}

/** What the model reads when a server refuses this worker's authorization. Never a token: only the server's name and
 * the kind of failure. */
export function authorizationFailureText(server: ResolvedMcpServer, err: unknown): string {
  if (err instanceof McpLoginRequired) return err.message;
  const what = err instanceof OAuthError ? `its authorization server refused us (${err.errorCode})` : err instanceof StreamableHTTPError ? `it answered HTTP ${err.code}` : 'it refused our authorization';
  if (server.kind === 'http' && server.config.clientCredentials) {
    return `MCP server "${server.name}": ${what}: check mcpServers.${server.name}.clientCredentials and the variables they name`;
  }
  return `MCP server "${server.name}": ${what}; someone must run \`durable-agent mcp login ${server.name}\` again`;
}

/** How long the answer to one refresh token's request is reused: a refresh token is good once (rotation), so a second
 * request with it (a call that read the tokens just before another refreshed them) gets the first one's answer. */
const REFRESH_REUSE_MS = 30_000;

/** A fetch for an OAuth server's session in which concurrent refreshes with the same refresh token are one request.
 * Without it, two calls that meet an expired token at once both refresh; with rotating refresh tokens the second is
 * refused (invalid_grant), and the SDK then drops the tokens the first just got. */
export function coalescedRefreshFetch(base: typeof fetch = fetch): typeof fetch {
  const answers = new Map<string, Promise<Response>>();
  return async (input, init) => {
    const body = init?.body;
    if (init?.method !== 'POST' || !(body instanceof URLSearchParams) || body.get('grant_type') !== 'refresh_token') return base(input, init);
    const key = `${input instanceof Request ? input.url : String(input)}\n${body.get('refresh_token')}`;
    let answer = answers.get(key);
    if (!answer) {
      answer = base(input, init);
      answers.set(key, answer);
      const forget = () => setTimeout(() => answers.delete(key), REFRESH_REUSE_MS).unref();
      answer.then(forget, () => answers.delete(key));
    }
    return (await answer).clone();
  };
}
