// MCP servers as a tool source: their tools become AgentTools named `<server>__<tool>`, so each call goes
// through the same runTool activity as any tool (summary, heartbeats, cancellation, retries, output limits).
import type { Tool } from '@anthropic-ai/sdk/resources/messages';
import type { McpServerConfig } from '../config/types.js';
import { API_TOOL_NAME, MCP_SEPARATOR, splitMcpName } from '../core/tool-names.js';
import type { RecordedTools } from '../core/types.js';
import type { ToolRegistry } from '../tools/registry.js';
import { ToolError, type AnyAgentTool, type ToolInputSchema } from '../tools/types.js';
import { checkToolSchema, validateJsonSchema } from '../tools/validate.js';
import { resolveMcpServers } from './config.js';
import { McpSession, type McpTool } from './connect.js';
import { messageOf } from './errors.js';
import type { McpTokenStore } from './token-store.js';
import { toolResultContent } from './content.js';

/** A configured MCP server did not start, or offers a tool the Messages API would refuse: a configuration
 * problem (the CLI's exit 2), its message naming each server and tool. */
export class McpStartupError extends Error {
  override name = 'McpStartupError';
}

export interface McpTools {
  /** The configured servers, by name. */
  servers(): string[];
  session(server: string): McpSession | undefined;
  /** The tool offered as `name` (`files__read`), from its server's latest listing. */
  tool(name: string): AnyAgentTool | undefined;
  /** Every MCP tool this worker offers now, `<server>__<tool>`. */
  toolNames(): string[];
  /** The definitions of the tools `names` stand for (exact names or `<server>__*`), and which of the names
   * MCP answered: what a run records when it starts. Names of servers this worker lacks are not covered. */
  describe(names: readonly string[]): Omit<RecordedTools, 'digest'>;
  /** Ends every session; stdio servers' processes exit. */
  close(): Promise<void>;
}

export interface ConnectMcpOptions {
  /** Server log lines and reconnects. Default: stderr. */
  log?: (message: string) => void;
  /** Where OAuth tokens of `oauth` servers are read and refreshed ones written. Default: the file store
   * (AGENT_MCP_TOKENS, else .durable-agent/mcp-tokens.json). */
  tokenStore?: McpTokenStore;
}

/** Starts (stdio) or connects to (HTTP) every server and lists its tools. Throws one error naming every
 * server that did not start and every tool whose name the Messages API would refuse; nothing is left
 * running then. */
export async function connectMcpServers(
  servers: Record<string, McpServerConfig>,
  options: ConnectMcpOptions = {},
): Promise<McpTools> {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const sessions = new Map(resolveMcpServers(servers).map((s) => [s.name, new McpSession(s, log, options.tokenStore)]));
  const closeAll = () => Promise.all([...sessions.values()].map((s) => s.close())).then(() => undefined);

  const started = await Promise.allSettled([...sessions.values()].map((s) => s.start()));
  const problems = started.flatMap((r) => (r.status === 'rejected' ? [messageOf(r.reason)] : []));
  const listings = new Map<McpSession, { listing: McpTool[]; tools: Map<string, AnyAgentTool> }>();
  const toolsOf = (session: McpSession, report?: (problem: string) => void): Map<string, AnyAgentTool> => {
    const listing = session.tools();
    let cached = listings.get(session);
    if (!cached || cached.listing !== listing) {
      cached = { listing, tools: agentTools(session, listing, report ?? ((p) => log(`${p}; the tool is left out`)), log) };
      listings.set(session, cached);
    }
    return cached.tools;
  };
  if (problems.length === 0) for (const session of sessions.values()) toolsOf(session, (p) => problems.push(p));
  if (problems.length > 0) {
    await closeAll();
    throw new McpStartupError(problems.join('\n'));
  }

  return {
    servers: () => [...sessions.keys()],
    session: (server) => sessions.get(server),
    tool(name) {
      const split = splitMcpName(name);
      const session = split && sessions.get(split.server);
      return session ? toolsOf(session).get(name) : undefined;
    },
    toolNames: () => [...sessions.values()].flatMap((s) => [...toolsOf(s).keys()]),
    describe(names) {
      const covers: string[] = [];
      const definitions = new Map<string, RecordedTools['definitions'][number]>();
      for (const name of names) {
        const split = splitMcpName(name);
        const session = split && sessions.get(split.server);
        if (!split || !session) continue;
        const tools = toolsOf(session);
        const matching = split.tool === '*' ? [...tools.values()] : [tools.get(name)].filter((t): t is AnyAgentTool => !!t);
        if (matching.length === 0 && split.tool !== '*') continue;
        covers.push(name);
        for (const t of matching) definitions.set(t.name, { name: t.name, description: t.description, input_schema: t.inputSchema });
      }
      return { covers, definitions: [...definitions.values()] };
    },
    close: closeAll,
  };
}

function agentTools(
  session: McpSession,
  listing: McpTool[],
  report: (problem: string) => void,
  log: (message: string) => void,
): Map<string, AnyAgentTool> {
  const tools = new Map<string, AnyAgentTool>();
  for (const tool of listing) {
    const name = `${session.name}${MCP_SEPARATOR}${tool.name}`;
    if (tool.execution?.taskSupport === 'required' && !session.takesTasks()) {
      // Every call to it would fail: it runs only as an MCP task, and the server does not take task calls.
      log(`MCP server "${session.name}": its tool "${tool.name}" requires task-based execution (execution.taskSupport: "required"), but the server does not declare the tasks capability for tools/call; the tool is left out`);
      continue;
    }
    const problem = nameProblem(session.name, tool.name, name);
    if (problem) {
      report(problem);
      continue;
    }
    const agentTool = mcpAgentTool(session, tool, name);
    const schemaProblem = checkToolSchema(agentTool);
    if (schemaProblem) {
      report(`MCP server "${session.name}": ${schemaProblem}`);
      continue;
    }
    const outputProblem = tool.outputSchema ? validateJsonSchema(tool.outputSchema) : null;
    if (outputProblem) {
      report(`MCP server "${session.name}": its tool "${tool.name}" has an output schema that does not compile: ${outputProblem.replace(/^Invalid JSON Schema: /, '')}`);
      continue;
    }
    tools.set(name, agentTool);
  }
  return tools;
}

function nameProblem(server: string, tool: string, name: string): string | null {
  if (API_TOOL_NAME.test(name)) return null;
  if (name.length > 64) {
    const room = 64 - MCP_SEPARATOR.length - tool.length;
    const fix =
      room > 0
        ? `give the server a name of at most ${room} character${room === 1 ? '' : 's'} in mcpServers`
        : 'the tool name alone is too long: rename the tool on the server';
    return `MCP server "${server}": its tool "${tool}" would be offered to the model as "${name}", ${name.length} characters; the Messages API allows 64: ${fix}`;
  }
  return (
    `MCP server "${server}": its tool "${tool}" cannot be offered to the model as "${name}": the Messages API allows only ` +
    'letters, digits, "_" and "-" in tool names; rename the tool on the server'
  );
}

function mcpAgentTool(session: McpSession, tool: McpTool, name: string): AnyAgentTool {
  const timeout = session.policy.toolTimeoutsMs[tool.name] ?? session.policy.callTimeoutMs;
  return {
    name,
    description: tool.description ?? tool.title ?? `The "${tool.name}" tool of the MCP server "${session.name}".`,
    inputSchema: inputSchemaOf(tool),
    ...(timeout !== undefined ? { timeout } : {}),
    // The server's word that the tool changes nothing: `replay` may call it again.
    ...(tool.annotations?.readOnlyHint === true ? { readOnly: true } : {}),
    async execute(input, context) {
      const result = await session.call(tool.name, input, context);
      const content = toolResultContent(result);
      if (!result.isError) return content;
      if (typeof content !== 'string') throw new ToolError(`MCP server "${session.name}" reported an error`, { content });
      throw new ToolError(content || `MCP server "${session.name}" reported an error from "${tool.name}" without a message`);
    },
  };
}

/** The tool's input schema as the API takes it: `$schema` is dropped (the API and the validator assume their
 * own draft; a 2020-12 URI would make the validator refuse to compile it). */
function inputSchemaOf(tool: McpTool): ToolInputSchema {
  const { $schema: _draft, ...schema } = tool.inputSchema as ToolInputSchema & { $schema?: unknown };
  return { ...schema, type: 'object' };
}

/** The worker's registry with the MCP tools added: looked up by name like any tool. A local tool may not
 * take an MCP tool's name. */
export function withMcpTools(registry: ToolRegistry, mcp: McpTools): ToolRegistry {
  const clash = mcp.toolNames().filter((name) => registry.get(name));
  if (clash.length > 0) {
    throw new Error(`Tool name(s) ${clash.join(', ')} are both a registered tool and an MCP server's tool: rename one`);
  }
  return {
    get: (name) => registry.get(name) ?? mcp.tool(name),
    names: () => [...registry.names(), ...mcp.toolNames()],
    definitions: (names) =>
      names.map((name): Tool => {
        const tool = registry.get(name) ? undefined : mcp.tool(name);
        if (!tool) return registry.definitions([name])[0];
        return { name: tool.name, description: tool.description, input_schema: tool.inputSchema };
      }),
  };
}
