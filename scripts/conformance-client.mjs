// The client under test of the MCP conformance suite (`conformance client --command "node scripts/conformance-client.mjs"`):
// the suite runs it with the scenario's server URL as its argument, MCP_CONFORMANCE_SCENARIO, and for some scenarios
// MCP_CONFORMANCE_CONTEXT (client credentials). It is durable-agent's own MCP client, as a worker uses it: the server
// entry a user would write for that kind of server, `mcp login` for OAuth servers (its browser step done here by
// following the authorization server's redirect, as a person approving would), then connectMcpServers (the worker's
// sessions: listing, calls, reconnects, the token store) and a call of every tool the server lists.
// It needs the built dist/ (npm run build). Exit 0: everything it did worked; 1: the error, on stderr.
import { resolveMcpServers } from '../dist/mcp/config.js';
import { mcpLogin } from '../dist/mcp/login.js';
import { MemoryMcpTokenStore } from '../dist/mcp/index.js';
import { connectMcpServers } from '../dist/mcp/tools.js';

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
const log = (message) => process.stderr.write(`${message}\n`);

/** The mcpServers entry a user would write for the scenario's kind of server. */
function serverConfig() {
  if (scenario === 'auth/client-credentials-basic') {
    return { url, clientCredentials: { clientId: context.client_id, clientSecret: context.client_secret } };
  }
  if (scenario === 'auth/client-credentials-jwt') {
    return { url, clientCredentials: { clientId: context.client_id, privateKey: context.private_key_pem, algorithm: context.signing_algorithm } };
  }
  if (scenario === 'auth/pre-registration') return { url, oauth: { clientId: context.client_id, clientSecret: context.client_secret } };
  // Client ID metadata documents where the authorization server supports them, else dynamic registration.
  if (scenario.startsWith('auth/')) return { url, oauth: { clientMetadataUrl: 'https://conformance-test.local/client-metadata.json' } };
  // No person here to ask: the policy a headless worker uses, which answers with the schema's defaults (SEP-1034).
  if (scenario.startsWith('elicitation')) return { url, elicitation: 'accept-defaults' };
  return { url };
}

/** The person at the browser: opens the authorization URL and approves; the authorization server redirects to the
 * loopback address `mcp login` listens on. */
async function browse(authorizationUrl) {
  const approval = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = approval.headers.get('location');
  if (!location) throw new Error(`the authorization endpoint answered HTTP ${approval.status} without a redirect`);
  await (await fetch(new URL(location, authorizationUrl))).text();
}

/** Arguments for a tool from its input schema: numbers 1, 2, ...; strings "test"; booleans true. */
function argumentsFor(schema) {
  const args = {};
  let n = 1;
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    const type = Array.isArray(property.type) ? property.type[0] : property.type;
    args[name] = type === 'number' || type === 'integer' ? n++ : type === 'boolean' ? true : type === 'object' ? {} : type === 'array' ? [] : 'test';
  }
  return args;
}

async function main() {
  const mcpServers = { server: serverConfig() };
  const store = new MemoryMcpTokenStore();
  const login = async () => {
    const [server] = resolveMcpServers(mcpServers);
    const { tools } = await mcpLogin(server, store, { onAuthorizationUrl: browse, timeoutMs: 20_000 });
    log(`mcp login: authorized, ${tools} tools`);
  };
  if (mcpServers.server.oauth) await login();
  const mcp = await connectMcpServers(mcpServers, { tokenStore: store, log });
  try {
    const session = mcp.session('server');
    for (const tool of session.tools()) {
      const call = () => session.call(tool.name, argumentsFor(tool.inputSchema), { signal: AbortSignal.timeout(20_000), idempotencyKey: `conformance/${tool.name}` });
      let result;
      try {
        result = await call();
      } catch (err) {
        // What the model would read, and what its operator does: log in again (a step-up asks for the larger scope).
        if (!(mcpServers.server.oauth && err instanceof Error && err.message.includes('durable-agent mcp login'))) throw err;
        log(`${err.message}: logging in again`);
        await login();
        result = await call();
      }
      log(`${tool.name}: ${JSON.stringify(result.content).slice(0, 200)}`);
    }
  } finally {
    await mcp.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    log(`conformance client: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
