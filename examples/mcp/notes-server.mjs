// An MCP server with two tools, written with the official SDK (@modelcontextprotocol/sdk): a notebook kept in
// a JSON file ($NOTES_FILE, else .durable-agent/mcp-notes.json in the working directory).
//   over stdio (the worker spawns it):  node examples/mcp/notes-server.mjs
//   over streamable HTTP:               node examples/mcp/notes-server.mjs --http --port 3001
// With $NOTES_TOKEN set, the HTTP server answers only requests carrying `Authorization: Bearer <NOTES_TOKEN>`.
// add_note records each note under the idempotency key the call carries in `_meta`, so a call retried after a
// crash does not add the note twice.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const IDEMPOTENCY_META_KEY = 'durable-agent/idempotency-key';
const NOTES_FILE = process.env.NOTES_FILE || path.join('.durable-agent', 'mcp-notes.json');

const TOOLS = [
  {
    name: 'add_note',
    description: 'Adds a note to the notebook. Returns the note and its number.',
    inputSchema: { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'] },
  },
  {
    name: 'list_notes',
    description: 'Lists every note in the notebook, oldest first, one per line: "<number>. <text>".',
    inputSchema: { type: 'object', properties: {} },
  },
];

function readNotes() {
  return existsSync(NOTES_FILE) ? JSON.parse(readFileSync(NOTES_FILE, 'utf8')) : [];
}

function writeNotes(notes) {
  mkdirSync(path.dirname(NOTES_FILE), { recursive: true });
  const temporary = `${NOTES_FILE}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(notes, null, 2));
  renameSync(temporary, NOTES_FILE); // atomic: a crash leaves the old notebook or the new one
}

const text = (value) => ({ content: [{ type: 'text', text: value }] });

async function callTool(request) {
  const { name, arguments: args = {} } = request.params;
  const key = request.params._meta?.[IDEMPOTENCY_META_KEY] ?? randomUUID();
  const notes = readNotes();
  switch (name) {
    case 'add_note': {
      const note = String(args.text ?? '').trim();
      if (!note) return { isError: true, ...text('The note is empty: pass the text to write down.') };
      let index = notes.findIndex((n) => n.key === key);
      if (index < 0) {
        notes.push({ key, text: note });
        writeNotes(notes);
        index = notes.length - 1;
      }
      return text(`Note ${index + 1}: ${notes[index].text}`);
    }
    case 'list_notes':
      return text(notes.length ? notes.map((n, i) => `${i + 1}. ${n.text}`).join('\n') : 'The notebook is empty.');
    default:
      return { isError: true, ...text(`Unknown tool ${name}`) };
  }
}

function notesServer() {
  const server = new Server({ name: 'notes', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, callTool);
  return server;
}

const argv = process.argv.slice(2);
if (!argv.includes('--http')) {
  await notesServer().connect(new StdioServerTransport());
} else {
  const port = Number(argv[argv.indexOf('--port') + 1] || 3001);
  const token = process.env.NOTES_TOKEN;
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    if (token && req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"a bearer token is required"}');
      return;
    }
    const id = req.headers['mcp-session-id'];
    let transport = id ? sessions.get(id) : undefined;
    if (id && !transport) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await notesServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  http.listen(port, '127.0.0.1', () => process.stderr.write(`notes MCP server on http://127.0.0.1:${http.address().port}/mcp\n`));
}
