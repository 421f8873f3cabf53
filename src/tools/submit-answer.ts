// `submit_answer`, the finish tool of a run started with an output schema. Its input is validated against
// the schema like any tool's input (an invalid answer goes back to the model as an is_error result); the
// workflow ends the run when it succeeds.
import { submitAnswerDescription, submitAnswerInputSchema, SUBMIT_ANSWER } from '../core/finish-tool.js';
import { defineTool, type AgentTool } from './types.js';

// One tool object per schema, so its validator is compiled once however many runs use it.
const bySchema = new Map<string, AgentTool>();

export function submitAnswerTool(schema: Record<string, unknown>): AgentTool {
  const key = JSON.stringify(schema);
  let tool = bySchema.get(key);
  if (!tool) {
    tool = defineTool<unknown>({
      name: SUBMIT_ANSWER,
      description: submitAnswerDescription(),
      inputSchema: submitAnswerInputSchema(schema),
      execute: async () => 'Answer accepted: the run ends now.',
    });
    bySchema.set(key, tool);
  }
  return tool;
}
