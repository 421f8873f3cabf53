// A tool module: `run --config examples/tools/durable-agent.config.mjs "<task>"` (or name it
// durable-agent.config.mjs in the working directory and leave --config out).
import { defineConfig, defineTool, ToolError } from 'durable-agent';

const wordCount = defineTool({
  name: 'word_count',
  description: 'Counts the words of a text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  async execute({ text }) {
    if (text.trim() === '') throw new ToolError('The text is empty: pass the text whose words to count.');
    return `${text.trim().split(/\s+/).length} words`;
  },
});

export default defineConfig({
  tools: [wordCount],
  // Replies of the offline scripted model (used with --scripted, or when ANTHROPIC_API_KEY is unset).
  scriptedModel: [
    {
      content: [{ type: 'tool_use', name: 'word_count', input: { text: 'the quick brown fox' } }],
      stop_reason: 'tool_use',
    },
    { content: [{ type: 'text', text: '"the quick brown fox" has 4 words.' }], stop_reason: 'end_turn' },
  ],
});
