// What a tool is: a plain async function with a name, a description and a JSON Schema for its input.
// No Temporal imports here: the worker wraps each call in an activity (retries, heartbeats, cancellation).
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { ToolResultContentBlock } from '../core/types.js';

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
}

/** A tool. `Output` is `string` unless the tool returns content blocks (`AgentTool<Input, ToolOutput>`), so
 * code that calls a text tool's `execute` directly keeps getting a string. */
export interface AgentTool<Input = any, Output extends ToolOutput = string> {
  name: string;
  description: string;
  inputSchema: ToolInputSchema;
  /** Each call waits for a human decision (`approve` / `deny`) before it runs. */
  needsApproval?: boolean;
  /** Returns what the model sees: text, or content blocks (text, images, documents) as a tool_result holds
   * them. Throw `ToolError` for an answer the model should act on (bad input, a domain failure): it becomes an
   * `is_error` tool_result. Any other error is treated as an infrastructure failure and the call is retried. */
  execute(input: Input, context: ToolContext): Promise<Output>;
}

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
