// The console's run page (part of /console.js, see console-script.ts): the conversation with thinking collapsed,
// compactions and sub-agents where they happen, the pending approval, the words streaming, the tokens and cost of
// each turn as a small inline SVG chart, and a link to the run in the Temporal UI.
export const CONSOLE_RUN_PAGE_JS = String.raw`
const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  for (const c of children) node.append(c);
  return node;
}
const promptTokens = (u) => (u.input_tokens || 0) + (u.cache_creation_input_tokens || 0) + (u.cache_read_input_tokens || 0);

/** Tokens per turn as stacked bars (prompt under output), each bar's numbers in its tooltip and the totals in words:
 * this run's own model calls (GET /usage reads its history), so a run that delegated says its sub-agents' are not
 * in them (the header's totals are). */
function usageChart(turns, delegated) {
  const figure = el('figure', { id: 'usage-chart' });
  if (!turns.length) return null;
  const max = Math.max(...turns.map((t) => promptTokens(t.usage) + t.usage.output_tokens), 1);
  const w = 10, gap = 4, h = 60;
  const bars = turns.map((t, i) => {
    const p = (promptTokens(t.usage) / max) * h;
    const o = (t.usage.output_tokens / max) * h;
    const x = i * (w + gap);
    const g = svg('g', { class: 'bar', 'data-step': t.step },
      svg('title', {}, 'turn ' + t.step + ': ' + count(promptTokens(t.usage)) + ' prompt + ' + count(t.usage.output_tokens) + ' output tokens · ' + money(t.costUsd)),
      svg('rect', { class: 'bar-prompt', x, y: h - p - o, width: w, height: Math.max(p, 0.5) }),
      svg('rect', { class: 'bar-output', x, y: h - o, width: w, height: Math.max(o, 0.5) }));
    return g;
  });
  const total = turns.reduce((s, t) => s + promptTokens(t.usage) + t.usage.output_tokens, 0);
  const cost = turns.every((t) => t.costUsd === null) ? null : turns.reduce((s, t) => s + (t.costUsd || 0), 0);
  const label = 'this run\'s own: ' + turns.length + ' model calls, ' + count(total) + ' tokens, ' + money(cost) + (delegated ? ' (its sub-agents\' calls not included)' : '');
  figure.append(
    svg('svg', { viewBox: '0 0 ' + Math.max(turns.length * (w + gap), 100) + ' ' + h, preserveAspectRatio: 'xMinYMax meet', role: 'img', 'aria-label': 'tokens per turn: ' + label }, ...bars),
    el('figcaption', { text: 'Tokens per turn (blue: prompt, green: output) · ' + label }));
  return figure;
}

function blockView(b, children) {
  if (b.type === 'text') return el('div', { text: b.text });
  if (b.type === 'thinking') return el('details', { class: 'thinking' }, el('summary', { text: 'thinking (' + count((b.thinking || '').length) + ' characters)' }), el('pre', { text: b.thinking || '' }));
  if (b.type === 'redacted_thinking') return el('details', { class: 'thinking' }, el('summary', { text: 'thinking (redacted)' }));
  if (b.type === 'compaction') return el('details', { class: 'compaction' }, el('summary', { text: 'compaction summary' }), el('pre', { text: b.content || '' }));
  if (b.type === 'tool_use' && b.name.startsWith('agent__')) {
    const child = children.find((c) => c.toolUseId === b.id);
    const facts = child ? ' · ' + child.status + ' · ' + child.steps + ' steps · ' + money(child.costUsd) : '';
    return el('div', { class: 'subagent', 'data-tool-use-id': b.id },
      el('strong', { text: 'sub-agent ' + b.name.slice('agent__'.length) }), el('span', { class: 'muted', text: facts }),
      el('details', {}, el('summary', { text: 'its task' }), el('pre', { text: (b.input && b.input.task) || JSON.stringify(b.input, null, 2) })),
      child ? el('div', { class: 'muted', text: 'child run ' + child.workflowId }) : null);
  }
  if (b.type === 'tool_use') return el('details', {}, el('summary', { text: 'tool call ' + b.name + ' (' + b.id + ')' }), el('pre', { text: JSON.stringify(b.input, null, 2) }));
  if (b.type === 'tool_result') {
    const content = typeof b.content === 'string' ? b.content : (b.content || []).map((c) => c.text || '').join('');
    return el('details', { open: content.length < 300 ? '' : null }, el('summary', { text: (b.is_error ? 'error result' : 'result') + ' of ' + b.tool_use_id }), el('pre', { text: content }));
  }
  return el('div', { text: '[' + b.type + ']' });
}

function compactionMarker(c) {
  return el('div', { class: 'marker', role: 'note', text: 'compaction' + (c.clientSide ? ' (client-side)' : '') + ': the ' + count(c.tokensBefore) + ' tokens of conversation before this point were summarized in ' + count(c.summaryTokens) });
}

function temporalLink(id, runId) {
  const ui = meta('temporal-ui').replace(/\/+$/, '');
  if (!/^https?:\/\//.test(ui)) return null;
  const href = ui + '/namespaces/' + encodeURIComponent(meta('temporal-namespace') || 'default') + '/workflows/' + encodeURIComponent(id) + (runId ? '/' + encodeURIComponent(runId) : '') + '/history';
  return el('a', { id: 'temporal-link', href, target: '_blank', rel: 'noopener noreferrer', text: 'open in the Temporal UI' });
}

async function runPage(id) {
  const path = '/v1/runs/' + encodeURIComponent(id);
  const head = el('div');
  const chart = el('div');
  const approval = el('div');
  const convo = el('div');
  const streaming = el('div', { id: 'streaming' });
  const reply = el('input', { 'aria-label': 'follow-up message', placeholder: 'a follow-up message', size: '40' });
  const send = () => api('POST', path + '/messages', { text: reply.value }).then(() => (reply.value = ''), show);
  reply.addEventListener('keydown', (e) => { if (e.key === 'Enter') send(); });
  const controls = el('div', { class: 'row', id: 'steering', role: 'group', 'aria-label': 'steer the run' }, reply,
    el('button', { onclick: send, text: 'Send' }),
    el('button', { onclick: () => api('POST', path + '/cancel').catch(show), text: 'Cancel run' }));
  main.replaceChildren(el('p', {}, el('a', { href: '#/', text: '← all runs' })), el('h2', { text: id }), head, chart, approval, convo, streaming, controls);
  let chartSteps = -1;
  let chartDelegated = false;
  let shownApprovals = null;
  const refresh = async () => {
    const [status, transcript] = await Promise.all([api('GET', path), api('GET', path + '/transcript')]);
    const v = status.view || {};
    // A run that has ended cannot be steered (the API answers 409): no follow-up box, Cancel, Approve or Deny.
    // A live report (a worker answered) has no executionStatus: its view's status says whether the run goes on.
    const running = v.status ? ['running', 'awaiting_approval', 'awaiting_input'].includes(v.status) : status.executionStatus === 'RUNNING';
    controls.hidden = !running;
    const tokens = v.usage ? promptTokens(v.usage) + v.usage.output_tokens : 0;
    // The run's totals count its sub-agents' calls too (they roll up into it); the chart's count its own only.
    const delegated = (v.children || []).length > 0;
    head.replaceChildren(el('p', {}, el('span', { class: 'status', id: 'run-status', text: v.status || status.executionStatus }),
      ' · ' + (v.steps ?? 0) + ' steps · ',
      el('span', { id: 'run-totals', text: count(tokens) + ' tokens · ' + money(v.costUsd) + (delegated ? ' with its sub-agents' : '') }),
      (v.guard ? ' · guard ' + v.guard : '') + ' ',
      ...(v.forkedFrom ? ['· forked from ', el('a', { href: '#/runs/' + encodeURIComponent(v.forkedFrom.workflowId), text: v.forkedFrom.workflowId }), ' at step ' + v.forkedFrom.step + ' '] : []),
      temporalLink(id, v.runId || status.runId)));
    if ((v.steps ?? 0) !== chartSteps || delegated !== chartDelegated) {
      chartSteps = v.steps ?? 0;
      chartDelegated = delegated;
      const { turns } = await api('GET', path + '/usage');
      chart.replaceChildren(...[usageChart(turns, delegated)].filter(Boolean));
    }
    // Rebuilt only when the calls waiting change: an event's refresh must not take the focus off Approve (Enter
    // would then do nothing) or clear a deny reason being typed.
    const pending = running ? v.pendingApprovals || [] : [];
    const approvalKey = pending.map((c) => c.toolUseId).join(',');
    if (approvalKey !== shownApprovals) {
      shownApprovals = approvalKey;
      approval.replaceChildren(...pending.map((c) => {
        const reason = el('input', { 'aria-label': 'reason for denying', placeholder: 'reason (deny)' });
        const decide = (decision) => api('POST', path + '/approvals/' + encodeURIComponent(c.toolUseId), decision === 'deny' ? { decision, reason: reason.value || undefined } : { decision }).then(refresh, show);
        return el('div', { id: 'approval', role: 'region', 'aria-label': 'approval' }, el('strong', { text: 'Waiting for approval: ' + c.name }), el('pre', { text: JSON.stringify(c.input, null, 2) }),
          el('div', { class: 'row' }, el('button', { onclick: () => decide('approve'), text: 'Approve' }), reason, el('button', { onclick: () => decide('deny'), text: 'Deny' })));
      }));
    }
    const compactions = v.compactionLog || [];
    const children = v.children || [];
    const nodes = [];
    // A fork's first messages are its source's steps, reused as recorded: marked, and where its live steps begin.
    const fork = v.forkedFrom && v.forkedFrom.step > 1 ? v.forkedFrom : null;
    let replies = 0;
    transcript.messages.forEach((m, i) => {
      if (fork && i === 0) nodes.push(el('div', { class: 'marker', role: 'note', text: 'reused: steps 1–' + (fork.step - 1) + ' of ' + fork.workflowId + ', as recorded (not run again) · ' + money(fork.reusedCostUsd) }));
      if (m.role === 'assistant' && ++replies === (fork ? fork.step : 0)) nodes.push(el('div', { class: 'marker', role: 'note', text: 'live from step ' + fork.step }));
      for (const c of compactions) if (c.messageIndex === i) nodes.push(compactionMarker(c));
      nodes.push(el('div', { class: 'msg ' + m.role }, el('div', { class: 'role', text: m.role }),
        ...(typeof m.content === 'string' ? [el('div', { text: m.content })] : m.content.map((b) => blockView(b, children)))));
    });
    convo.replaceChildren(...nodes);
  };
  await refresh();
  const controller = new AbortController();
  follow(path + '/events', controller.signal, (event, data) => {
    if (event === 'model_text') streaming.textContent += data.delta;
    else { if (event === 'step') streaming.textContent = ''; refresh().catch(show); }
  }).catch(() => {});
  return () => controller.abort();
}
`;
