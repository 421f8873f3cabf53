// The `submit_answer` tool of a run started with an output schema, all of it in one place: its name, its
// definition (sent to the model by the model activity, executed by the tool activity), and the output the
// workflow takes from it. The model ends the run by calling it with input that satisfies the schema; the
// input is validated like any tool's (an invalid answer goes back to the model as an is_error result).
import type { AgentTool, ToolInputSchema } from '../tools/types.js';

export const SUBMIT_ANSWER = 'submit_answer';

const DESCRIPTION =
  'Submit the final answer of this task. Call it exactly once, when you are done, with input that matches ' +
  'the schema; the run ends when the input is valid. If it is rejected, fix the input and call it again.';

/** Tool input schemas must be objects; any other schema is wrapped in an `answer` property. */
export function submitAnswerInputSchema(schema: Record<string, unknown>): ToolInputSchema {
  if (isObjectSchema(schema)) return { ...schema, type: 'object' };
  return { type: 'object', properties: { answer: schema }, required: ['answer'], additionalProperties: false };
}

/** The answer as the user's schema describes it (unwrapped again when it was wrapped). */
export function outputFromInput(schema: Record<string, unknown>, input: unknown): unknown {
  if (isObjectSchema(schema)) return input;
  return (input as { answer?: unknown } | null)?.answer;
}

/** The answer of a turn in which `submit_answer` succeeded (its input passed validation), or null. */
export function submittedAnswer(
  schema: Record<string, unknown>,
  calls: ReadonlyArray<{ name: string; input: unknown }>,
  outcomes: ReadonlyArray<{ isError: boolean }>,
): { output: unknown } | null {
  const submitted = calls.findIndex((call, i) => call.name === SUBMIT_ANSWER && !outcomes[i].isError);
  return submitted >= 0 ? { output: outputFromInput(schema, calls[submitted].input) } : null;
}

// One tool object per schema, so its validator (compiled per tool object) is compiled once however many runs
// use it; the most recently used FINISH_TOOLS_KEPT are kept, so a long-lived worker serving many different
// schemas does not grow without bound. Only the activities call submitAnswerTool; the workflow never fills this
// cache.
export const FINISH_TOOLS_KEPT = 64;
const bySchema = new Map<string, AgentTool>();

/** The finish tool for this output schema. */
export function submitAnswerTool(schema: Record<string, unknown>): AgentTool {
  const key = JSON.stringify(schema);
  let tool = bySchema.get(key);
  if (tool) {
    bySchema.delete(key); // re-inserted below: Map order is the recency order
  } else {
    tool = {
      name: SUBMIT_ANSWER,
      description: DESCRIPTION,
      inputSchema: submitAnswerInputSchema(schema),
      execute: async () => 'Answer accepted: the run ends now.',
    };
  }
  bySchema.set(key, tool);
  if (bySchema.size > FINISH_TOOLS_KEPT) bySchema.delete(bySchema.keys().next().value!);
  return tool;
}

function isObjectSchema(schema: Record<string, unknown>): boolean {
  return schema.type === 'object';
}
