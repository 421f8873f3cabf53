// The shape of a tool-module config file (`durable-agent.config.js`, or `--config FILE`): the tools a worker
// registers and the MCP servers whose tools it offers. Shared by the CLI, the worker and the plugin.
import type { SubAgentDefinition } from '../core/types.js';
import type { Script, ScriptsByAgent } from '../scripted/script.js';
import type { AnyAgentTool, Duration } from '../tools/types.js';

/** How the calls to one MCP server's tools are scheduled and ridden out (either kind of server). */
export interface McpCallPolicy {
  /** The timeout of a call to any of its tools (start to close; default: the run's `--tool-timeout`, 5 minutes). */
  callTimeout?: Duration;
  /** Per tool, by the server's own tool name: `{ build: '2h' }`; over `callTimeout`. */
  toolTimeouts?: Record<string, Duration>;
  /** How long a call waits for a server that cannot be reached (connection refused, session lost, HTTP 5xx), retrying
   * with backoff, before it fails; these retries do not count against the tool's attempts. Default 2 minutes. */
  reconnectFor?: Duration;
  /** At most this many `tools/list` pages, at start and at each `list_changed` refresh (default 100): a listing
   * that goes on past it is a startup error (at a refresh, the tools listed before are kept). */
  maxListPages?: number;
  /** At most this many tools from this server (default 1000), checked the same way. */
  maxTools?: number;
  /** The largest message a stdio server may send, in bytes (default 10 MiB, the MCP SDK's own read limit): a tool
   * result over it fails saying so. */
  maxMessageBytes?: number;
  /** What a server's `elicitation/create` (a question for the user during a call) gets: `ask` (default) makes it a
   * pending question of the run, answered with `durable-agent answer`; `decline` declines it at once;
   * `accept-defaults` accepts it with the schema's defaults (declined when they do not fill every required field). */
  elicitation?: 'ask' | 'decline' | 'accept-defaults';
  /** How long a question waits for its answer before it is answered `cancel` (default: until the run's deadline). */
  elicitationTimeout?: Duration;
}

/** An MCP server spawned by the worker and spoken to over stdio. */
export interface McpStdioServerConfig extends McpCallPolicy {
  command: string;
  args?: string[];
  /** The server's environment. Without it the server gets only the MCP SDK's safe subset of the worker's. */
  env?: Record<string, string>;
  cwd?: string;
}

/** An MCP server reached over streamable HTTP. */
export interface McpHttpServerConfig extends McpCallPolicy {
  url: string;
  /** Request headers. A value written `${NAME}` is read from the worker's environment variable NAME, so secrets
   * stay out of the config file and out of workflow history. */
  headers?: Record<string, string>;
  /** OAuth 2.1 with the authorization-code flow: `durable-agent mcp login <name>` authorizes once, in a browser; the
   * workers read the tokens from the token store and refresh them. `true` for the defaults (dynamic client
   * registration, scopes from the server). See docs/tools-and-mcp.md, "Authorization". */
  oauth?: true | McpOAuthConfig;
  /** OAuth client credentials (machine to machine, no human step): a client secret or a private key (JWT). */
  clientCredentials?: McpClientCredentials;
}

export interface McpOAuthConfig {
  /** The scopes to ask for when the server says none (in `WWW-Authenticate` or its metadata). */
  scope?: string;
  /** A client registered beforehand with the authorization server (else: dynamic client registration, or the
   * client ID metadata document at `clientMetadataUrl`). `clientSecret` may be written `${NAME}`. */
  clientId?: string;
  clientSecret?: string;
  /** An https URL of this client's metadata document, used when the authorization server supports it. */
  clientMetadataUrl?: string;
  /** The loopback port `mcp login` listens on for the redirect (default: any free one; a pre-registered client's
   * redirect URI names one). */
  redirectPort?: number;
}

export interface McpClientCredentials {
  clientId: string;
  /** `client_secret_basic`; written `${NAME}`, read from the worker's environment. */
  clientSecret?: string;
  /** A PEM private key for `private_key_jwt` (instead of a secret), written `${NAME}`; `algorithm` default RS256. */
  privateKey?: string;
  algorithm?: string;
  scope?: string;
  /** The authorization server these credentials belong to: they are sent to no other. */
  issuer?: string;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** A named sub-agent (offered to the model as the tool `agent__<name>`, input `{ task }`): `deadline` is a duration
 * (`'10m'`); the rest is SubAgentDefinition's. Its `tools` may name other agents as `agent__<name>`. */
export interface SubAgentConfig extends Omit<SubAgentDefinition, 'deadlineMs'> {
  deadline?: Duration;
}

export interface AgentConfig {
  /** Sub-agents by name: each is a child run of the same agent workflow when the model calls `agent__<name>`. */
  agents?: Record<string, SubAgentConfig>;
  /** How deep sub-agents may nest (default 2): a chain of agents in `agents` deeper than this, or a cycle, is an
   * error at load time; a run's `--max-agent-depth` may lower it. */
  maxAgentDepth?: number;
  /** Tools written with `defineTool`, registered on the worker next to the built-ins. */
  tools?: AnyAgentTool[];
  /** MCP servers by name; their tools are offered to the model as `<name>__<tool>`. */
  mcpServers?: Record<string, McpServerConfig>;
  /** Replies of the offline scripted model for this config's tools (an example's stand-in for Claude): used by
   * `--scripted`, and by `run` when ANTHROPIC_API_KEY is unset. `AGENT_SCRIPT` overrides it. With sub-agents,
   * `{ script, agents: { <name>: script } }` gives each agent its own script (docs/sub-agents.md). */
  scriptedModel?: Script | ScriptsByAgent;
}

/** Types a config file's default export; a plain object works the same. */
export function defineConfig(config: AgentConfig): AgentConfig {
  return config;
}
