// An MCP server over streamable HTTP, started on its own first:
//   NOTES_TOKEN=s3cret node examples/mcp/notes-server.mjs --http --port 3001 &
//   NOTES_TOKEN=s3cret npm run --silent agent -- run --config examples/mcp/http.config.mjs "Note: call the bank"
// The token is read from the worker's environment when it connects: it is not in this file, nor in history.
import { defineConfig } from 'durable-agent';
import { notesScript } from './scripted-model.mjs';

export default defineConfig({
  mcpServers: {
    notes: { url: process.env.NOTES_URL || 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer ${NOTES_TOKEN}' } },
  },
  scriptedModel: notesScript,
});
