// What a tool is: a plain async function with a name, a description and a JSON Schema for its input.
// No Temporal imports here: the worker wraps each call in an activity (retries, heartbeats, cancellation).

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

export interface AgentTool<Input = any> {
  name: string;
  description: string;
  inputSchema: ToolInputSchema;
  /** Each call waits for a human decision (`approve` / `deny`) before it runs. */
  needsApproval?: boolean;
  /** Returns the text the model sees. Throw `ToolError` for an answer the model should act on (bad input, a
   * domain failure): it becomes an `is_error` tool_result. Any other error is treated as an infrastructure
   * failure and the call is retried. */
  execute(input: Input, context: ToolContext): Promise<string>;
}

/** A failure the model should see and can act on, returned as an `is_error` tool_result (never retried). */
export class ToolError extends Error {
  override name = 'ToolError';
}

/** Declares a tool with its input type checked against `execute`. */
export function defineTool<Input>(tool: AgentTool<Input>): AgentTool<Input> {
  return tool;
}
