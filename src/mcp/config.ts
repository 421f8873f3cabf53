// Checks the `mcpServers` of a config before anything is spawned, and reads `${NAME}` references from the
// worker's environment, so a typo or a missing secret is one clear startup error and secrets stay out of the
// config file (and, since the config never enters a workflow, out of history).
import type { McpCallPolicy, McpHttpServerConfig, McpServerConfig, McpStdioServerConfig } from '../config/types.js';
import { ELICITATION_POLICIES, type ElicitationPolicy } from '../core/elicitation.js';
import { MCP_SEPARATOR } from '../core/tool-names.js';
import { durationMs } from '../tools/policy.js';

/** A server entry with every `${NAME}` replaced by its value, and its call policy in ms. */
export type ResolvedMcpServer = (
  | { name: string; kind: 'stdio'; config: McpStdioServerConfig }
  | { name: string; kind: 'http'; config: McpHttpServerConfig; url: URL }
) & { policy: McpServerPolicy };

/** An MCP server's `callTimeout`, `toolTimeouts` and `reconnectFor`, checked, in ms. */
export interface McpServerPolicy {
  callTimeoutMs?: number;
  toolTimeoutsMs: Record<string, number>;
  reconnectForMs: number;
  maxListPages: number;
  maxTools: number;
  maxMessageBytes: number;
  elicitation: ElicitationPolicy;
  elicitationTimeoutMs?: number;
}

/** How long a call waits for an unreachable server when its config says nothing (`reconnectFor`). */
export const DEFAULT_MCP_RECONNECT_FOR_MS = 2 * 60_000;
/** `tools/list` pages and tools one server may offer (a server that pages forever stops here). */
export const DEFAULT_MCP_MAX_LIST_PAGES = 100;
export const DEFAULT_MCP_MAX_TOOLS = 1000;
/** The MCP SDK's own read limit for one stdio message. */
export const DEFAULT_MCP_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The policy fields of `mcpServers.<name>`, checked: throws one line naming the field. */
export function mcpServerPolicy(name: string, config: McpCallPolicy): McpServerPolicy {
  const where = `mcpServers.${name}`;
  const policy: McpServerPolicy = {
    toolTimeoutsMs: {},
    reconnectForMs: DEFAULT_MCP_RECONNECT_FOR_MS,
    maxListPages: positiveInteger(config.maxListPages, `${where}.maxListPages`, DEFAULT_MCP_MAX_LIST_PAGES),
    maxTools: positiveInteger(config.maxTools, `${where}.maxTools`, DEFAULT_MCP_MAX_TOOLS),
    maxMessageBytes: positiveInteger(config.maxMessageBytes, `${where}.maxMessageBytes`, DEFAULT_MCP_MAX_MESSAGE_BYTES),
    elicitation: 'ask',
  };
  if (config.elicitation !== undefined) {
    if (!ELICITATION_POLICIES.includes(config.elicitation)) {
      throw new Error(`${where}.elicitation: expected one of ${ELICITATION_POLICIES.join(', ')}, got ${JSON.stringify(config.elicitation)}`);
    }
    policy.elicitation = config.elicitation;
  }
  if (config.elicitationTimeout !== undefined) policy.elicitationTimeoutMs = durationMs(config.elicitationTimeout, `${where}.elicitationTimeout`);
  if (config.callTimeout !== undefined) policy.callTimeoutMs = durationMs(config.callTimeout, `${where}.callTimeout`);
  if (config.toolTimeouts !== undefined) {
    if (typeof config.toolTimeouts !== 'object' || config.toolTimeouts === null || Array.isArray(config.toolTimeouts)) {
      throw new Error(`${where}.toolTimeouts: expected an object of durations by tool name, like { build: '2h' }`);
    }
    for (const [tool, timeout] of Object.entries(config.toolTimeouts)) {
      policy.toolTimeoutsMs[tool] = durationMs(timeout, `${where}.toolTimeouts.${tool}`);
    }
  }
  if (config.reconnectFor !== undefined) policy.reconnectForMs = durationMs(config.reconnectFor, `${where}.reconnectFor`, 0);
  return policy;
}

function positiveInteger(value: unknown, where: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new Error(`${where}: expected a whole number of at least 1, got ${JSON.stringify(value)} (default ${fallback})`);
  }
  return value;
}

// A server name becomes the prefix of its tools' names (`<server>__<tool>`), which the API limits to these
// characters; `__` is the separator, so it may not appear in the name itself.
const SERVER_NAME = /^[a-zA-Z0-9_-]+$/;
/** Whether `name` can name an MCP server (resolveServer and a config file's check both ask). */
export const isServerName = (name: string) => SERVER_NAME.test(name) && !name.includes(MCP_SEPARATOR);
const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function resolveMcpServers(
  servers: Record<string, McpServerConfig>,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedMcpServer[] {
  return Object.entries(servers).map(([name, config]) => resolveServer(name, config, env));
}

/** Why `name` cannot name an MCP server given in code (AgentPlugin, resolveMcpServers), or null. */
export function serverNameProblem(name: string): string | null {
  const where = `mcpServers.${name}`;
  if (!isServerName(name)) {
    return (
      `${where}: a server name may hold only letters, digits, "_" and "-", and not "${MCP_SEPARATOR}" ` +
      `(its tools are named <server>${MCP_SEPARATOR}<tool>); rename the server`
    );
  }
  // Its tools would be named agent__<tool>, the names of the sub-agents' tools.
  if (name === 'agent') return `${where}: the server name "agent" is reserved: agent__<name> are the sub-agents' tools; rename the server`;
  return null;
}

function resolveServer(name: string, config: McpServerConfig, env: NodeJS.ProcessEnv): ResolvedMcpServer {
  const where = `mcpServers.${name}`;
  const nameProblem = serverNameProblem(name);
  if (nameProblem) throw new Error(nameProblem);
  if (!config || typeof config !== 'object') throw new Error(`${where}: expected { command, args? } or { url, headers? }`);
  const hasCommand = 'command' in config && config.command !== undefined;
  const hasUrl = 'url' in config && config.url !== undefined;
  if (hasCommand === hasUrl) {
    throw new Error(`${where}: give either "command" (a stdio server the worker spawns) or "url" (a streamable-HTTP server), not ${hasCommand ? 'both' : 'neither'}`);
  }
  if (hasCommand) {
    const c = config as McpStdioServerConfig;
    if (typeof c.command !== 'string' || !c.command) throw new Error(`${where}.command: expected a non-empty string`);
    if (c.args !== undefined && (!Array.isArray(c.args) || c.args.some((a) => typeof a !== 'string'))) {
      throw new Error(`${where}.args: expected an array of strings`);
    }
    const envVars = c.env === undefined ? undefined : interpolateAll(c.env, `${where}.env`, env);
    return { name, kind: 'stdio', config: { ...c, ...(envVars ? { env: envVars } : {}) }, policy: mcpServerPolicy(name, c) };
  }
  const c = config as McpHttpServerConfig;
  let url: URL;
  try {
    url = new URL(c.url);
  } catch {
    throw new Error(`${where}.url: "${c.url}" is not a URL; write it like http://127.0.0.1:3000/mcp`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${where}.url: "${c.url}" must be http:// or https:// (a streamable-HTTP MCP endpoint)`);
  }
  const headers = c.headers === undefined ? undefined : interpolateAll(c.headers, `${where}.headers`, env);
  const auth = resolveAuth(c, where, env);
  return { name, kind: 'http', url, config: { ...c, ...(headers ? { headers } : {}), ...auth }, policy: mcpServerPolicy(name, c) };
}

/** `oauth` and `clientCredentials`, checked, their secrets read from the environment. */
function resolveAuth(c: McpHttpServerConfig, where: string, env: NodeJS.ProcessEnv): Pick<McpHttpServerConfig, 'oauth' | 'clientCredentials'> {
  if (c.oauth !== undefined && c.clientCredentials !== undefined) {
    throw new Error(`${where}: give either "oauth" (a person logs in with durable-agent mcp login) or "clientCredentials" (no human step), not both`);
  }
  if (c.oauth !== undefined) {
    if (c.oauth !== true && (typeof c.oauth !== 'object' || c.oauth === null || Array.isArray(c.oauth))) {
      throw new Error(`${where}.oauth: expected true or an object like { scope?, clientId?, clientSecret?, redirectPort? }`);
    }
    if (c.oauth === true) return { oauth: true };
    const o = c.oauth;
    if (o.redirectPort !== undefined && (!Number.isInteger(o.redirectPort) || o.redirectPort < 0 || o.redirectPort > 65_535)) {
      throw new Error(`${where}.oauth.redirectPort: expected a port number (0 to 65535), got ${JSON.stringify(o.redirectPort)}`);
    }
    if (o.clientSecret !== undefined && o.clientId === undefined) throw new Error(`${where}.oauth.clientSecret: give clientId with it`);
    const clientSecret = o.clientSecret === undefined ? undefined : interpolate(o.clientSecret, `${where}.oauth.clientSecret`, env);
    return { oauth: { ...o, ...(clientSecret !== undefined ? { clientSecret } : {}) } };
  }
  if (c.clientCredentials !== undefined) {
    const cc = c.clientCredentials;
    if (typeof cc !== 'object' || cc === null || typeof cc.clientId !== 'string' || !cc.clientId) {
      throw new Error(`${where}.clientCredentials: expected { clientId, clientSecret: '\${SECRET}' } or { clientId, privateKey: '\${KEY}' }`);
    }
    if ((cc.clientSecret === undefined) === (cc.privateKey === undefined)) {
      throw new Error(`${where}.clientCredentials: give either clientSecret or privateKey, not ${cc.clientSecret === undefined ? 'neither' : 'both'}`);
    }
    const secret = cc.clientSecret === undefined ? {} : { clientSecret: interpolate(cc.clientSecret, `${where}.clientCredentials.clientSecret`, env) };
    const key = cc.privateKey === undefined ? {} : { privateKey: interpolate(cc.privateKey, `${where}.clientCredentials.privateKey`, env) };
    return { clientCredentials: { ...cc, ...secret, ...key } };
  }
  return {};
}

function interpolateAll(values: Record<string, string>, where: string, env: NodeJS.ProcessEnv): Record<string, string> {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) throw new Error(`${where}: expected an object of strings`);
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, interpolate(value, `${where}.${key}`, env)]));
}

/** `Bearer ${API_TOKEN}` → `Bearer <the value of API_TOKEN>`. A missing variable is an error: sending a
 * header without its secret would only fail later, less clearly. */
export function interpolate(value: string, where: string, env: NodeJS.ProcessEnv): string {
  if (typeof value !== 'string') throw new Error(`${where}: expected a string`);
  return value.replace(ENV_REFERENCE, (_, variable: string) => {
    const found = env[variable];
    if (found === undefined || found === '') {
      throw new Error(`${where} refers to \${${variable}}, but the environment variable ${variable} is not set on this worker; set it`);
    }
    return found;
  });
}

/** Where a server is, for messages: the command or the URL (never a header or an env value). */
export function describeServer(server: ResolvedMcpServer): string {
  return server.kind === 'stdio'
    ? [server.config.command, ...(server.config.args ?? [])].join(' ')
    : `${server.url.origin}${server.url.pathname}`;
}
