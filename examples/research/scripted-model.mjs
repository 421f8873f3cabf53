// The offline stand-in for Claude in the research example. It tells the three agents apart by their system prompt:
// the orchestrator (no system prompt of its own) delegates, the researcher searches and answers, the writer writes.
// Replies depend only on the request, so a retried request gets the same reply.

/** @type {import('durable-agent').Script} */
export const researchScript = (request) => {
  const system = typeof request.system === 'string' ? request.system : JSON.stringify(request.system ?? '');
  const task = textOf(request.messages[0].content);
  const results = request.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result');
  if (system.includes('You are the researcher')) {
    if (results.length === 0) return reply([{ type: 'tool_use', name: 'web_search', input: { query: task } }], 'tool_use');
    return reply([{ type: 'text', text: `Finding for "${task}": ${oneLine(textOf(results[0].content), 160)}` }]);
  }
  if (system.includes('You are the writer')) {
    return reply([{ type: 'text', text: `Report. ${task.replace(/^Write a short report from these findings:\s*/, '')}` }]);
  }
  // The orchestrator.
  if (results.length === 0) {
    return reply(
      [
        { type: 'text', text: 'I will research both countries at once.' },
        { type: 'tool_use', name: 'agent__researcher', input: { task: 'population of France' } },
        { type: 'tool_use', name: 'agent__researcher', input: { task: 'population of Germany' } },
      ],
      'tool_use',
    );
  }
  if (results.length === 2) {
    const findings = results.map((r) => textOf(r.content)).join(' ');
    return reply([{ type: 'tool_use', name: 'agent__writer', input: { task: `Write a short report from these findings: ${findings}` } }], 'tool_use');
  }
  return reply([{ type: 'text', text: textOf(results.at(-1).content) }]);
};

function reply(content, stopReason = 'end_turn') {
  return { content, stop_reason: stopReason };
}

function textOf(content) {
  if (typeof content === 'string') return content;
  return (content ?? []).flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}

function oneLine(text, max) {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
