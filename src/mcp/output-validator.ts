// The MCP client checks a tool's structured output against the tool's `outputSchema` with its own Ajv, whose
// patterns run on JavaScript's backtracking engine: this validator compiles them as the tools' input schemas are
// (src/tools/validate.ts, RE2), so a hostile output schema cannot freeze the worker either. A schema that does not
// compile fails that tool's calls with the reason (listing goes on; agentTools refuses such a tool at listing).
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { compileAlone, describeError } from '../tools/validate.js';

export const linearOutputValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let validate: ReturnType<typeof compileAlone>;
    try {
      validate = compileAlone(schema as object);
    } catch (error) {
      const why = `its output schema does not compile: ${error instanceof Error ? error.message : String(error)}`;
      return () => ({ valid: false, data: undefined, errorMessage: why });
    }
    return (input) =>
      validate(input)
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: (validate.errors ?? []).map(describeError).join('; ') || 'does not match' };
  },
};
