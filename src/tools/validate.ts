// Checks a tool's input against its JSON Schema before the tool runs, so a tool only ever sees input of the
// shape it declared, and the model gets a message precise enough to correct its next call.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsPlugin from 'ajv-formats';
import { kindOf } from '../core/is-object.js';
import { linearRegExp } from './linear-regexp.js';
import type { AnyAgentTool } from './types.js';

// ajv-formats is CommonJS: its default export is the plugin function (typed as a module namespace under NodeNext).
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv) => Ajv;

// Keyed by the tool object: a tool's schema is compiled once per process, however many calls it serves, and
// its validator goes when the tool does.
const compiled = new WeakMap<AnyAgentTool, ValidateFunction>();

function validatorFor(tool: AnyAgentTool): ValidateFunction {
  let validate = compiled.get(tool);
  if (!validate) {
    validate = compileAlone(tool.inputSchema);
    compiled.set(tool, validate);
  }
  return validate;
}

/** The Ajv every schema is compiled in: creating one costs about a tenth of a second of CPU (it compiles the JSON
 * Schema meta-schema and the formats), so one serves many schemas. `addUsedSchema: false`: a compiled schema is not
 * registered under its `$id`, so two different schemas sharing one (two runs' `--output-schema`, two tools) do not
 * collide. An instance keeps every schema it compiled, so it is replaced after SCHEMAS_PER_COMPILER (bounded memory). */
let compiler: { ajv: Ajv; compiled: number } | undefined;
const SCHEMAS_PER_COMPILER = 100;

function schemaCompiler(): Ajv {
  if (!compiler || compiler.compiled >= SCHEMAS_PER_COMPILER) {
    // Patterns run on RE2 (linear time): a hostile `pattern` cannot freeze the worker (see linear-regexp.ts).
    const ajv = new Ajv({ allErrors: true, strict: false, addUsedSchema: false, code: { regExp: linearRegExp } });
    // The formats JSON Schema defines (uri, date-time, email, ...) are checked, not warned of as unknown.
    addFormats(ajv);
    compiler = { ajv, compiled: 0 };
  }
  compiler.compiled++;
  return compiler.ajv;
}

/** `schema` compiled on its own: whatever `$id` it or another schema carries, the one does not affect the other. */
export function compileAlone(schema: object | boolean): ValidateFunction {
  return schemaCompiler().compile(schema);
}

export function describeError(error: ErrorObject): string {
  const where = error.instancePath ? `${error.instancePath} ` : '';
  let text = `${where}${error.message ?? 'is invalid'}`;
  // Ajv leaves the offending name or the allowed values in params; the model needs them to fix the call.
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') text += ` ("${String(params.additionalProperty)}")`;
  if (error.keyword === 'enum') text += `: ${JSON.stringify(params.allowedValues)}`;
  return text;
}

/** Compiles the tool's input schema now (the registry calls it, so a broken schema fails at startup rather
 * than on the model's first call). Returns why it does not compile, or null. */
export function checkToolSchema(tool: AnyAgentTool): string | null {
  try {
    validatorFor(tool);
    return null;
  } catch (error) {
    return `Tool "${tool.name}" has an invalid input schema: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Returns a message naming every problem with `input`, or null when it matches the tool's schema. */
export function validateToolInput(tool: AnyAgentTool, input: unknown): string | null {
  const validate = validatorFor(tool);
  if (validate(input)) return null;
  const problems = (validate.errors ?? []).map(describeError);
  return `Invalid input for tool "${tool.name}": ${problems.join('; ') || 'input does not match the schema'}`;
}

/** Returns why `schema` is not a usable JSON Schema, or null when it compiles. */
export function validateJsonSchema(schema: unknown): string | null {
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    return `A JSON Schema must be an object or a boolean, got ${kindOf(schema)}`;
  }
  try {
    compileAlone(schema as object | boolean);
    return null;
  } catch (error) {
    return `Invalid JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
  }
}
