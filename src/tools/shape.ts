// What makes a value a tool a worker can offer: checked where tools are registered (createToolRegistry: a config
// file's tools at load time, createAgentWorker's and AgentPlugin's when they are made), so a tool the Messages API
// would refuse, or one that cannot run, is a startup error naming it, never a 400 or a TypeError in every run.
import type { AnyAgentTool } from './types.js';

/** Why `tool` cannot be registered (one line, naming it), or null. */
export function toolShapeProblem(tool: unknown, where = 'tool'): string | null {
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) {
    return `${where} is not a tool (got ${tool === null ? 'null' : Array.isArray(tool) ? 'an array' : typeof tool}): write it with defineTool({ name, description, inputSchema, execute })`;
  }
  const t = tool as Partial<Record<keyof AnyAgentTool, unknown>>;
  const named = typeof t.name === 'string' ? `Tool "${t.name}"` : where;
  const missing = [
    typeof t.name === 'string' ? undefined : 'name',
    typeof t.description === 'string' ? undefined : 'description',
    typeof t.inputSchema === 'object' && t.inputSchema !== null && !Array.isArray(t.inputSchema) ? undefined : 'inputSchema',
    typeof t.execute === 'function' ? undefined : 'execute',
  ].filter((k): k is string => k !== undefined);
  if (missing.length > 0) {
    return `${named} has no ${missing.join(', ')}: write it with defineTool({ name, description, inputSchema, execute })`;
  }
  return inputSchemaProblem(t.name as string, t.inputSchema);
}

/** The Messages API takes only an object schema as a tool's input schema (`type: "object"`); any other is a 400 on
 * every model call that offers the tool. MCP tools are held to the same rule when they are listed. */
export function inputSchemaProblem(name: string, schema: unknown): string | null {
  const type = (schema as { type?: unknown } | null)?.type;
  if (type === 'object') return null;
  return (
    `Tool "${name}" has an input schema of type ${type === undefined ? '(none)' : JSON.stringify(type)}: the Messages API takes only ` +
    "an object schema ({ type: 'object', properties: { ... } }); wrap the value in a property"
  );
}
