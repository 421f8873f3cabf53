// An MCP server over stdio: the worker spawns examples/mcp/notes-server.mjs and offers its tools to the model
// as notes__add_note and notes__list_notes.
//   npm run --silent agent -- run --config examples/mcp/durable-agent.config.mjs "Note: buy milk"
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'durable-agent';
import { notesScript } from './scripted-model.mjs';

export default defineConfig({
  mcpServers: {
    notes: {
      command: process.execPath, // node
      args: [fileURLToPath(new URL('./notes-server.mjs', import.meta.url))],
      // A stdio server gets only a safe part of the worker's environment (PATH, HOME, ...) plus what `env` names.
      env: { NOTES_FILE: process.env.NOTES_FILE ?? '.durable-agent/mcp-notes.json' },
    },
  },
  // Replies of the offline scripted model (used with --scripted, or when ANTHROPIC_API_KEY is unset).
  scriptedModel: notesScript,
});
