// What a tool is: a plain async function with a name, a description and a JSON Schema for its input.
// No Temporal imports here: the worker wraps each call in an activity (retries, heartbeats, cancellation).
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { ElicitationAnswer, ElicitationQuestion, ToolOutcome, ToolResultContentBlock } from '../core/types.js';

export type { ToolResultContentBlock };

/** What a tool returns: text, or content blocks (text, images, documents) as a tool_result holds them. */
export type ToolOutput = string | ToolResultContentBlock[];

/** A JSON Schema for a tool's input. The Messages API requires the top level to be an object schema. */
export interface ToolInputSchema {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
  [keyword: string]: unknown;
}

export interface ToolContext {
  workflowId: string;
  toolUseId: string;
  /** Stable across retries of this call: derived from the workflow id and the tool_use id. Tools with side
   * effects use it to make them happen once. */
  idempotencyKey: string;
  /** Aborted when the run is cancelled or the activity times out. */
  signal: AbortSignal;
  /** Which attempt of this call this is: 1, then 2, ... when a timeout or a crash made Temporal retry it. */
  attempt: number;
  /** When this attempt's timeout ends (epoch ms), where the worker knows it: a tool waiting on another system can
   * give up just before, with a message of its own, rather than be cut off by the timeout. */
  deadline?: number;
  /** Reports how far the call has got: shown by `status`, `watch` and the Temporal UI's pending activity (it
   * travels in the call's heartbeat, throttled; nothing is added to history). `fraction` is 0..1. */
  progress(message: string, fraction?: number): void;
  /** An opaque string that completes this call from outside: hand it to the system that does the work, which
   * completes the call with `durable-agent complete-tool <token> --result TEXT` or `completeToolCall(client,
   * token, result)`. Only for a tool defined with `completesLater: true`. */
  readonly completionToken: string;
  /** `return context.completeLater()`: the call's result comes from outside, through `completionToken`. The call
   * then holds no worker slot and needs no heartbeat: it waits, across worker restarts, until its `timeout`. Only
   * for a tool defined with `completesLater: true`. */
  completeLater(): never;
  /** Set when the run can hold questions for a person (MCP elicitation): the answers recorded for this call so far,
   * in the order they were asked. A tool throws `NeedsInput` to ask a new one; the call is made again with its answer. */
  elicitation?: { answers: ElicitationAnswer[] };
  /** For a tool that runs as an MCP task: the task an earlier attempt of this call started (from its last heartbeat),
   * and `started(taskId)`, which keeps a new task's id in the call's heartbeat details for the next attempt. */
  mcpTask?: { resume?: string; started(taskId: string): void };
}

/** Thrown by a tool (an MCP tool whose server elicits) when the call needs a person's answer first: the run holds the
 * question, and makes the call again with the answer among `context.elicitation.answers`. */
export class NeedsInput extends Error {
  override name = 'NeedsInput';
  constructor(readonly question: Omit<ElicitationQuestion, 'id' | 'toolUseId'>) {
    super(`the call needs an answer: ${question.message}`);
  }
}

/** Whether `err` is a `NeedsInput` (by name too: another copy of this package may have thrown it). */
export function isNeedsInput(err: unknown): err is NeedsInput {
  return err instanceof Error && err.name === 'NeedsInput' && 'question' in err;
}

/** A duration: milliseconds, or a string such as `'90s'`, `'10m'`, `'2h'`, `'1h30m'`. */
export type Duration = number | string;

/** How a tool's calls are scheduled (the defaults: TOOL_CALL_OPTIONS, and the run's `--tool-timeout`). Fixed for
 * a run when it starts: the worker reports it once, and the run keeps it across continue-as-new and restarts. */
export interface ToolCallPolicyOptions {
  /** The whole call, start to close, of one attempt (a wait for an outside completion included). Default: the
   * run's `--tool-timeout`, else 5 minutes. A call that runs past it is retried, and after the last attempt the
   * model gets an `is_error` result saying it timed out. */
  timeout?: Duration;
  /** How soon a worker that died mid-call is noticed and the call retried elsewhere. Default: the run's
   * `--heartbeat-timeout` (10 s). */
  heartbeatTimeout?: Duration;
  /** Temporal's retry policy of the call. Default: 3 attempts, 1 s then doubling, at most 30 s apart. */
  retry?: {
    /** At least 1 (1: never retried). */
    maximumAttempts?: number;
    initialInterval?: Duration;
    backoffCoefficient?: number;
    maximumInterval?: Duration;
  };
  /** The tool may end its calls with `context.completeLater()` (work done elsewhere, completed through
   * `context.completionToken`). Its calls are scheduled without a heartbeat timeout. */
  completesLater?: boolean;
  /** Run its calls as Temporal local activities: in the worker that runs the workflow task, with no dispatch
   * through the server and no workflow task of their own (a turn of a fast tool saves one server round trip).
   * For short, side-effect-free calls (a calculation, a lookup in memory): a local call shows in the Web UI only
   * as a marker once it has ended (never as a pending activity), it cannot heartbeat (no `progress`, and
   * `heartbeatTimeout` cannot be set), is retried by the worker within the workflow task, and a worker crash
   * mid-call is noticed by the workflow task timeout. Cannot be set with `completesLater`. Default false. */
  fast?: boolean;
}

/** A tool. `Output` is `string` unless the tool returns content blocks (`AgentTool<Input, ToolOutput>`), so
 * code that calls a text tool's `execute` directly keeps getting a string. */
export interface AgentTool<Input = any, Output extends ToolOutput = string> extends ToolCallPolicyOptions {
  name: string;
  description: string;
  inputSchema: ToolInputSchema;
  /** Each call waits for a human decision (`approve` / `deny`) before it runs. */
  needsApproval?: boolean;
  /** The tool changes nothing outside (a lookup, a calculation): `replay` calls it again on a recorded run's inputs.
   * A tool without it is skipped by `replay` unless `--all-tools` (docs/fork-and-replay.md). */
  readOnly?: boolean;
  /** How `replay` compares a recorded result with the current one, for a tool whose results differ between calls
   * without a change in meaning (a timestamp, an order): true when they agree. Default: equal content and error flag. */
  compareResults?(recorded: ReplayedResult, current: ReplayedResult): boolean;
  /** Returns what the model sees: text, or content blocks (text, images, documents) as a tool_result holds
   * them. Throw `ToolError` for an answer the model should act on (bad input, a domain failure): it becomes an
   * `is_error` tool_result. Any other error is treated as an infrastructure failure and the call is retried. */
  execute(input: Input, context: ToolContext): Promise<Output>;
}

/** A tool call's result, as `replay` compares it: what the model saw, and whether it was an error. */
export type ReplayedResult = Pick<ToolOutcome, 'content' | 'isError'>;

/** Any tool, whatever its input and output: what a registry, a worker and a config hold. */
export type AnyAgentTool = AgentTool<any, ToolOutput>;

/** A failure the model should see and can act on, returned as an `is_error` tool_result (never retried). */
export class ToolError extends Error {
  override name = 'ToolError';
  /** What the model sees instead of the message, when the error carries more than text (an MCP error result
   * with an image, say). */
  readonly content?: ToolResultContentBlock[];

  constructor(message: string, options?: { content?: ToolResultContentBlock[] }) {
    super(message);
    if (options?.content) this.content = options.content;
  }
}

/** Whether `err` is what `context.completeLater()` throws (by name too: a config file's tools may use another copy
 * of this package). */
export function isCompleteLater(err: unknown): boolean {
  return err instanceof Error && err.name === 'CompleteLater';
}

/** An object JSON Schema as written in the source, from which a tool's input type is derived. */
export type ObjectJsonSchema = { readonly type: 'object' };

/** The input type a JSON Schema describes (json-schema-to-ts: types only, nothing at runtime). */
export type InputOf<Schema extends ObjectJsonSchema> =
  // A schema typed as a whole (e.g. ToolInputSchema, not a literal) says nothing about the input.
  string extends keyof Schema ? any : Schema extends JSONSchema ? FromSchema<Schema> : never;

/** A tool whose `execute` input type is derived from its `inputSchema`. */
export type TypedToolDefinition<Schema extends ObjectJsonSchema, Output extends ToolOutput = string> = Omit<
  AgentTool<InputOf<Schema>, Output>,
  'inputSchema'
> & {
  inputSchema: Schema;
};

/**
 * Declares a tool. Written with its schema inline (or a schema declared `as const`), the type of `execute`'s
 * input is derived from the schema: `required` properties are required, `enum`s become unions, and so on.
 * Ajv still validates every call against the same schema at run time, so the type and the check cannot drift.
 * `defineTool<{ city: string }>({...})` states the type instead, checked against `execute` only.
 */
export function defineTool<const Schema extends ObjectJsonSchema>(tool: TypedToolDefinition<Schema>): AgentTool<InputOf<Schema>>;
/** A tool that returns content blocks (images, documents) as well as text. */
export function defineTool<const Schema extends ObjectJsonSchema>(
  tool: TypedToolDefinition<Schema, ToolOutput>,
): AgentTool<InputOf<Schema>, ToolOutput>;
export function defineTool<Input, Output extends ToolOutput = string>(tool: AgentTool<Input, Output>): AgentTool<Input, Output>;
export function defineTool(tool: AnyAgentTool): AnyAgentTool {
  return tool;
}
