// The offline stand-in for Claude in the MCP examples: it writes the task down with notes__add_note, reads the
// notebook back with notes__list_notes, and answers with what it read. Replies depend only on the request, so
// a retried request gets the same reply.

/** @type {import('durable-agent').Script} */
export const notesScript = (request) => {
  const task = textOf(request.messages[0].content);
  const results = request.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result');
  const offered = (request.tools ?? []).map((t) => t.name);
  if (!offered.includes('notes__add_note') || !offered.includes('notes__list_notes')) {
    return reply([{ type: 'text', text: `This run does not offer the notes server's tools (it offers: ${offered.join(', ') || 'none'}).` }]);
  }
  if (results.length === 0) {
    return reply([{ type: 'tool_use', name: 'notes__add_note', input: { text: task.replace(/^note:\s*/i, '') } }], 'tool_use');
  }
  if (results.length === 1) return reply([{ type: 'tool_use', name: 'notes__list_notes', input: {} }], 'tool_use');
  return reply([{ type: 'text', text: `Noted. The notebook now reads:\n${textOf(results[1].content)}` }]);
};

function reply(content, stopReason = 'end_turn') {
  return { content, stop_reason: stopReason };
}

function textOf(content) {
  if (typeof content === 'string') return content;
  return (content ?? []).flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}
