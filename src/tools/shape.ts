// What makes a value a tool a worker can offer: checked where tools are registered (createToolRegistry: a config
// file's tools at load time, createAgentWorker's and AgentPlugin's when they are made), so a tool the Messages API
// would refuse, or one that cannot run, is a startup error naming it, never a 400 or a TypeError in every run.
import { isObject, kindOf } from '../core/is-object.js';

export const DEFINE_TOOL = 'write it with defineTool({ name, description, inputSchema, execute })';

/** Why `tool` cannot be registered (one line, naming it), or null. */
export function toolShapeProblem(tool: unknown, where = 'tool'): string | null {
  if (!isObject(tool)) return `${where} is not a tool (got ${kindOf(tool)}): ${DEFINE_TOOL}`;
  const missing = missingToolFields(tool);
  if (missing.length > 0) return `${typeof tool.name === 'string' ? `Tool "${tool.name}"` : where} has no ${missing.join(', ')}: ${DEFINE_TOOL}`;
  return inputSchemaProblem(tool.name as string, tool.inputSchema);
}

/** The fields `tool` lacks to be a tool (all of them when it is not an object); a config file's check says them too. */
export function missingToolFields(tool: unknown): string[] {
  const t = isObject(tool) ? tool : {};
  return [
    typeof t.name === 'string' ? undefined : 'name',
    typeof t.description === 'string' ? undefined : 'description',
    isObject(t.inputSchema) ? undefined : 'inputSchema',
    typeof t.execute === 'function' ? undefined : 'execute',
  ].filter((k): k is string => k !== undefined);
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
