// One session per MCP server: the worker spawns a stdio server or connects to a streamable-HTTP one, lists
// its tools, and calls them. A session that fails (the process died, the connection dropped, the server
// forgot the session) is dropped, and the next call opens a new one, so a retried activity reconnects. So is
// a session that left a call unanswered until its timeout, or answered it with something that is not MCP: a
// hung server is recycled (for stdio, its process too) before the retry, instead of getting every attempt.
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Progress,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { coalesced, type Coalesced } from '../core/coalesce.js';
import { formatDuration } from '../core/duration.js';
import { NeedsInput, ToolError, type ToolContext } from '../tools/types.js';
import { describeServer, type ResolvedMcpServer } from './config.js';
import {
  invalidAnswerText,
  isInvalidAnswer,
  isReadLimit,
  McpBadAnswer,
  McpNoAnswer,
  McpServerUnavailable,
  messageOf,
  reconnectable,
  timedOut,
} from './errors.js';
import { answerElicitation, type InFlightCall } from './elicitation.js';
import { listAllTools } from './listing.js';
import { authorizationFailureText, isAuthorizationFailure, McpLoginRequired, StoreOAuthProvider, workerAuthProvider } from './oauth.js';
import { callsAsTask, callToolAsTask, cancelTask } from './tasks.js';
import { abortableSleep, formatBytes, listChange, progressText } from './text.js';
import { linearOutputValidator } from './output-validator.js';
import { defaultMcpTokenStore, type McpTokenStore } from './token-store.js';
import { closeClient, openTransport } from './transport.js';

export type { McpTool };

/** The `_meta` key under which each tool call carries its idempotency key (`<workflowId>/<toolUseId>`, the same
 * on every attempt), so a server with side effects can make them happen once. */
export const IDEMPOTENCY_META_KEY = 'durable-agent/idempotency-key';

/** Starting a server and its `initialize` handshake. */
const CONNECT_TIMEOUT_MS = 30_000;
/** The SDK's own 60 s default would cut long tool calls short; the activity's start-to-close timeout and
 * cancellation (an aborted signal sends `notifications/cancelled`) are what bound a call. */
const CALL_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** What a call takes from its tool call's context: the server's progress notifications go to its `progress`, and
 * `mcpTask` is used for a tool with `execution.taskSupport`. */
export type McpCallOptions = Pick<ToolContext, 'signal' | 'idempotencyKey' | 'deadline' | 'progress' | 'elicitation' | 'mcpTask'>;

/** The first wait before a call is made again on a new session, doubled each time up to RECONNECT_MAX_WAIT_MS,
 * for as long as the server's `reconnectFor` allows. */
const RECONNECT_FIRST_WAIT_MS = 500;
const RECONNECT_MAX_WAIT_MS = 10_000;

export class McpSession {
  readonly name: string;
  /** Sessions opened so far (1 after start; more after reconnects). */
  connects = 0;
  #client: Client | undefined;
  #opening: Promise<Client> | undefined;
  #tools: McpTool[] = [];
  #closed = false;
  #pid: number | null = null;
  readonly #dropped = new WeakSet<Client>();
  /** Sessions whose stdio stream carried a message over maxMessageBytes (the SDK then closed them). */
  readonly #overflowed = new WeakSet<Client>();
  #refresh: Coalesced | undefined;
  /** `tools/list` listings started so far (each of one or more pages). */
  listings = 0;
  readonly #calls = new Set<InFlightCall>();

  /** OAuth (tokens from the store) or client credentials, when the server's config asks for them. */
  readonly #auth: OAuthClientProvider | undefined;

  constructor(
    private readonly server: ResolvedMcpServer,
    private readonly log: (message: string) => void,
    tokenStore?: McpTokenStore,
  ) {
    this.name = server.name;
    this.#auth = workerAuthProvider(server, () => tokenStore ?? defaultMcpTokenStore());
  }

  /** Connects and lists the tools; throws a message naming the server when that fails. */
  async start(): Promise<void> {
    try {
      await this.#connect();
    } catch (err) {
      if (this.#auth && isAuthorizationFailure(err)) {
        throw new Error(`MCP server "${this.name}" (${describeServer(this.server)}) did not start: ${authorizationFailureText(this.server, err)}`, { cause: err });
      }
      const refused = err instanceof StreamableHTTPError && (err.code === 401 || err.code === 403);
      const hint = refused ? ` (check mcpServers.${this.name}.headers and the variables they name)` : '';
      throw new Error(`MCP server "${this.name}" (${describeServer(this.server)}) did not start: ${messageOf(err)}${hint}`, { cause: err });
    }
  }

  /** The tools of the latest listing (at connect, and again when the server says its list changed). */
  tools(): McpTool[] {
    return this.#tools;
  }

  /** Resolves when no `list_changed` refresh is in flight or queued. */
  refreshed(): Promise<void> {
    return this.#refresh?.idle() ?? Promise.resolve();
  }

  /** Its `callTimeout`, `toolTimeouts`, `reconnectFor` and caps. */
  get policy(): ResolvedMcpServer['policy'] {
    return this.server.policy;
  }

  /** Whether the server (its current session) takes tools/call as a task. */
  takesTasks(): boolean {
    return !!this.#client?.getServerCapabilities()?.tasks?.requests?.tools?.call;
  }

  /** The pid of a stdio server's process while it runs. */
  get pid(): number | null {
    return this.#pid;
  }

  /** Calls `tool`. While the server cannot be reached (connection refused, session lost, HTTP 5xx) the call is
   * made again on a fresh session, with backoff, for up to the server's `reconnectFor`: a server restarting
   * for a few seconds costs the call nothing, and none of the tool's own attempts. An answer from the server,
   * an error result included, is never retried here. */
  async call(tool: string, args: unknown, options: McpCallOptions): Promise<CallToolResult> {
    const { signal } = options;
    const reconnectFor = this.server.policy.reconnectForMs;
    const giveUpAt = Date.now() + reconnectFor;
    for (let retry = 0; ; retry++) {
      try {
        return await this.#callOnce(tool, args, options);
      } catch (err) {
        if (!(err instanceof McpServerUnavailable) || !reconnectable(err.cause) || signal.aborted) throw err;
        const wait = Math.min(RECONNECT_FIRST_WAIT_MS * 2 ** retry, RECONNECT_MAX_WAIT_MS);
        if (Date.now() + wait > giveUpAt) {
          this.log(
            `MCP server "${this.name}": "${tool}" failed: ${messageOf(err.cause)}; no reconnect follows (reconnectFor ${formatDuration(reconnectFor)} is spent): the call fails`,
          );
          throw err;
        }
        this.log(
          `MCP server "${this.name}": "${tool}" failed: ${messageOf(err.cause)}; calling it again on a new session in ${formatDuration(wait)} ` +
            `(reconnect ${retry + 1}, for up to ${formatDuration(reconnectFor)})`,
        );
        await abortableSleep(wait, signal);
      }
    }
  }

  async #callOnce(tool: string, args: unknown, options: McpCallOptions): Promise<CallToolResult> {
    const { signal, progress } = options;
    let client: Client;
    try {
      client = await this.#connect();
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (this.#auth && isAuthorizationFailure(err)) throw new ToolError(authorizationFailureText(this.server, err));
      throw new McpServerUnavailable(this.name, err);
    }
    // Given up on a little before the deadline (a tenth of the time left, at most 1 s), so the failure names the server.
    const giveUp = new AbortController();
    const left = options.deadline !== undefined ? options.deadline - Date.now() : undefined;
    const timer = left !== undefined ? setTimeout(() => giveUp.abort(), Math.max(0, left - Math.min(1000, left / 10))) : undefined;
    // A question for a person stops the call (the run holds it; the call is made again with the answer).
    const asking = new AbortController();
    let question: NeedsInput['question'] | undefined;
    const call: InFlightCall = {
      client,
      tool,
      ...(options.elicitation ? { elicitation: options.elicitation } : {}),
      asked: 0,
      ask(q) {
        question = q;
        asking.abort();
      },
    };
    this.#calls.add(call);
    let taskId = options.mcpTask?.resume;
    try {
      const callSignal = AbortSignal.any([signal, giveUp.signal, asking.signal]);
      const meta = { [IDEMPOTENCY_META_KEY]: options.idempotencyKey };
      const toolArgs = (args ?? {}) as Record<string, unknown>;
      // With a callback the SDK sends a progressToken: the server's progress notifications reach the call's own
      // progress (status, watch, the UI); for a task, until the task ends.
      const onprogress = (p: Progress) => progress(progressText(p), p.total ? p.progress / p.total : undefined);
      const task = options.mcpTask;
      if (task && callsAsTask(client, this.#tools.find((t) => t.name === tool))) {
        // A reconnect within this attempt (the server was away) resumes the task too.
        const started = (id: string) => {
          taskId = task.resume = id;
          task.started(id);
        };
        const taskCall = { resume: task.resume, started };
        const taskOptions = { signal: callSignal, timeout: CALL_TIMEOUT_MS, meta, progress, onprogress, log: this.log, server: this.name };
        return await callToolAsTask(client, tool, toolArgs, taskCall, taskOptions);
      }
      const result = await client.callTool({ name: tool, arguments: toolArgs, _meta: meta }, undefined, {
        signal: callSignal,
        timeout: CALL_TIMEOUT_MS,
        onprogress,
      });
      return result as CallToolResult;
    } catch (err) {
      if (question) {
        // The call is made again with the answer, as a new task: this one would otherwise run on, orphaned.
        if (taskId) await cancelTask(client, taskId);
        throw new NeedsInput(question);
      }
      if (signal.aborted) {
        // Timed out: the server never answered. Whatever holds it up (a hung process, a wedged session) would
        // hold up the retry too, so the retry gets a new session (and process).
        if (timedOut(signal.reason)) this.#recycle(client, `"${tool}" got no answer within its timeout`);
        // The run no longer wants the result: its task stops too. (A timed-out attempt, or a worker shutting down,
        // leaves it running for the retry.)
        else if (taskId && signal.reason instanceof Error && signal.reason.message === 'CANCELLED') await cancelTask(client, taskId);
        // The SDK has already sent notifications/cancelled; Temporal needs its own cancellation back.
        throw signal.reason;
      }
      if (giveUp.signal.aborted) {
        this.#recycle(client, `"${tool}" got no answer before the call's timeout`);
        const restarted = this.server.kind === 'stdio' ? 'its session and process were restarted' : 'its session was restarted';
        throw new McpNoAnswer(`MCP server "${this.name}" did not answer "${tool}" before the call's timeout; ${restarted}`);
      }
      // Tokens refused and not refreshable (revoked, expired without a refresh token): a person must log in again;
      // retrying would only be refused again.
      if (this.#auth && isAuthorizationFailure(err)) {
        this.#drop(client);
        throw new ToolError(authorizationFailureText(this.server, err));
      }
      // The server answered with a JSON-RPC error (an unknown tool, invalid arguments): the model can act on
      // that, and a retry would get the same answer.
      if (err instanceof McpError && err.code !== ErrorCode.ConnectionClosed && err.code !== ErrorCode.RequestTimeout) {
        throw new ToolError(`MCP server "${this.name}" refused the call to "${tool}": ${err.message}`);
      }
      if (isInvalidAnswer(err)) {
        const what = `answered "${tool}" with something that is not an MCP result (${invalidAnswerText(err).replace(/^its answer is not valid MCP: /, '')})`;
        this.#recycle(client, what);
        throw new McpBadAnswer(`MCP server "${this.name}" ${what}; its session was restarted`, { cause: err });
      }
      this.#drop(client);
      if (this.#overflowed.has(client)) {
        // Calling again would read the same oversized answer: the model is told, and can ask for less.
        const limit = this.server.policy.maxMessageBytes;
        throw new ToolError(
          `MCP server "${this.name}": the answer to "${tool}" (or to a call in flight beside it) is over the ${formatBytes(limit)} ` +
            `a worker reads in one message from a stdio server; ask for a smaller result, or raise mcpServers.${this.name}.maxMessageBytes`,
        );
      }
      throw new McpServerUnavailable(this.name, err);
    } finally {
      clearTimeout(timer);
      this.#calls.delete(call);
    }
  }

  /** Drops a session that failed a call without failing itself, saying so: the next call opens a new one. */
  #recycle(client: Client, what: string): void {
    if (this.#dropped.has(client)) return;
    const process = this.server.kind === 'stdio' ? ' and process' : '';
    this.log(`MCP server "${this.name}": ${what}; restarting its session${process}, so a retry gets a fresh one`);
    this.#drop(client);
  }

  /** Ends the session and, for a stdio server, the process (stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client ?? (await this.#opening?.catch(() => undefined));
    this.#client = undefined;
    if (client) await closeClient(client);
  }

  #connect(): Promise<Client> {
    if (this.#client) return Promise.resolve(this.#client);
    this.#opening ??= this.#open().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  async #open(): Promise<Client> {
    if (this.#closed) throw new Error('the worker is shutting down');
    // Output schemas are checked with the same linear-time patterns as input schemas (output-validator.ts).
    // Form-mode elicitation, with the schema's defaults applied to accepted answers (SEP-1034).
    const client = new Client(
      { name: 'durable-agent', version: '0.1.0' },
      { capabilities: { elicitation: { form: { applyDefaults: true } } }, jsonSchemaValidator: linearOutputValidator },
    );
    client.setRequestHandler(ElicitRequestSchema, (request) =>
      Promise.resolve(answerElicitation({ name: this.name, policy: this.server.policy, log: this.log }, [...this.#calls].filter((c) => c.client === client), request)),
    );
    if (this.#auth instanceof StoreOAuthProvider) await this.#auth.requireTokens();
    const transport = openTransport(this.server, this.log, this.#auth);
    client.onclose = () => {
      if (this.#client === client) this.#client = undefined;
    };
    client.onerror = (err) => {
      if (isReadLimit(err)) this.#overflowed.add(client);
      // While it connects, a failure is thrown (and told once, by whoever asked): only a live session's is logged.
      if (this.#client !== client) return;
      this.log(err instanceof McpLoginRequired ? err.message : `MCP server "${this.name}": ${messageOf(err)}`);
      // An HTTP response stream that breaks off (the server died) leaves its request unanswered for good: the
      // SDK resumes only streams the server primed for it. Closing the session fails the calls in flight
      // (ConnectionClosed), so they are retried on a new session.
      if (/SSE stream disconnected|Maximum reconnection attempts/.test(messageOf(err))) this.#drop(client);
    };
    try {
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      this.#tools = await this.#list(client);
    } catch (err) {
      await closeClient(client);
      throw err;
    }
    if (this.#closed) {
      await closeClient(client);
      throw new Error('the worker is shutting down');
    }
    // A burst of list_changed is one refresh in flight and at most one queued (20,000 notifications were 20,000
    // listings); a refresh that fails or hits a cap keeps the tools listed before.
    const refresh = coalesced(async () => {
      if (this.#client !== client) return;
      try {
        const before = this.#tools.map((t) => t.name);
        this.#tools = await this.#list(client);
        this.log(`MCP server "${this.name}": its tool list changed (notifications/tools/list_changed): ${listChange(before, this.#tools.map((t) => t.name))}; runs that start from now on get it, runs in flight keep the definitions they recorded`);
      } catch (err) {
        this.log(`MCP server "${this.name}": listing its tools again failed: ${messageOf(err)}; its ${this.#tools.length} tools listed before are kept`);
      }
    });
    this.#refresh = refresh;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      void refresh.trigger();
      return Promise.resolve();
    });
    if (transport instanceof StdioClientTransport) this.#pid = transport.pid;
    this.#client = client;
    this.connects++;
    if (this.connects > 1) this.log(`MCP server "${this.name}": reconnected (session ${this.connects})`);
    return client;
  }

  #list(client: Client): Promise<McpTool[]> {
    this.listings++;
    return listAllTools(client, this.server, CONNECT_TIMEOUT_MS);
  }

  /** A failed session is closed (a hung stdio server is killed) and forgotten; the next call opens a new one. */
  #drop(client: Client): void {
    if (this.#client === client) this.#client = undefined;
    if (this.#dropped.has(client)) return;
    this.#dropped.add(client);
    void closeClient(client);
  }
}
