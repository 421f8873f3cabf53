// The `submit_answer` tool of a run started with an output schema: the model ends the run by calling it with
// input that satisfies the schema, and the result carries that input as `output`.
export const SUBMIT_ANSWER = 'submit_answer';

/** Tool input schemas must be objects; any other schema is wrapped in an `answer` property. */
export function submitAnswerInputSchema(schema: Record<string, unknown>): Record<string, unknown> & { type: 'object' } {
  if (isObjectSchema(schema)) return { ...schema, type: 'object' };
  return { type: 'object', properties: { answer: schema }, required: ['answer'], additionalProperties: false };
}

/** The answer as the user's schema describes it (unwrapped again when it was wrapped). */
export function outputFromInput(schema: Record<string, unknown>, input: unknown): unknown {
  if (isObjectSchema(schema)) return input;
  return (input as { answer?: unknown } | null)?.answer;
}

export function submitAnswerDescription(): string {
  return (
    'Submit the final answer of this task. Call it exactly once, when you are done, with input that matches ' +
    'the schema; the run ends when the input is valid. If it is rejected, fix the input and call it again.'
  );
}

function isObjectSchema(schema: Record<string, unknown>): boolean {
  return schema.type === 'object';
}
