// The web console's script (served at /console.js): the runs table at `#/`, a run's page at `#/runs/<id>`. It
// calls the same API as everyone else, with the token the user types (kept in sessionStorage, for this tab).
export const CONSOLE_JS = String.raw`'use strict';
const main = document.getElementById('main');
const errorBox = document.getElementById('error');
const tokenForm = document.getElementById('token-form');
let token = sessionStorage.getItem('durable-agent-token') || '';
let stop = () => {};

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined) continue;
    if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

async function api(method, path, body) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = 'Bearer ' + token;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await r.json().catch(() => ({}));
  if (r.status === 401) { tokenForm.hidden = false; document.getElementById('token').focus(); }
  if (!r.ok) throw new Error((json.error && json.error.message) || ('HTTP ' + r.status));
  errorBox.textContent = '';
  return json;
}

tokenForm.addEventListener('submit', (e) => {
  e.preventDefault();
  token = document.getElementById('token').value.trim();
  sessionStorage.setItem('durable-agent-token', token);
  tokenForm.hidden = true;
  route();
});

const money = (x) => (x === null || x === undefined ? '—' : '$' + Number(x).toFixed(4));
const when = (t) => (t ? new Date(t).toLocaleString() : '');

async function runsPage() {
  const table = el('table', {}, el('thead', {}, el('tr', {}, ...['run', 'status', 'model', 'steps', 'tokens', 'cost', 'guard', 'started'].map((h) => el('th', { scope: 'col', text: h })))));
  const body = el('tbody');
  table.append(body);
  main.replaceChildren(el('h2', { text: 'Runs' }), table);
  const load = async () => {
    const { runs } = await api('GET', '/v1/runs?limit=50');
    body.replaceChildren(...runs.filter((r) => r.current).map((r) => el('tr', {},
      el('td', {}, el('a', { href: '#/runs/' + encodeURIComponent(r.workflowId), text: r.workflowId })),
      el('td', { class: 'status', text: r.attributes.status || r.executionStatus.toLowerCase() }),
      el('td', { text: r.attributes.model || '' }),
      el('td', { class: 'num', text: String(r.attributes.steps ?? '') }),
      el('td', { class: 'num', text: String(r.attributes.tokens ?? '') }),
      el('td', { class: 'num', text: money(r.attributes.costUsd) }),
      el('td', { text: r.attributes.guard || '' }),
      el('td', { text: when(r.startTime) }))));
  };
  await load();
  const timer = setInterval(() => load().catch(show), 3000);
  return () => clearInterval(timer);
}

function blockView(b) {
  if (b.type === 'text') return el('div', { text: b.text });
  if (b.type === 'thinking') return el('details', {}, el('summary', { text: 'thinking' }), el('pre', { text: b.thinking || '' }));
  if (b.type === 'tool_use') return el('details', {}, el('summary', { text: 'tool call ' + b.name + ' (' + b.id + ')' }), el('pre', { text: JSON.stringify(b.input, null, 2) }));
  if (b.type === 'tool_result') {
    const content = typeof b.content === 'string' ? b.content : (b.content || []).map((c) => c.text || '').join('');
    return el('details', { open: content.length < 300 ? '' : null }, el('summary', { text: (b.is_error ? 'error result' : 'result') + ' of ' + b.tool_use_id }), el('pre', { text: content }));
  }
  return el('div', { text: '[' + b.type + ']' });
}

async function runPage(id) {
  const path = '/v1/runs/' + encodeURIComponent(id);
  const head = el('div');
  const approval = el('div');
  const convo = el('div');
  const streaming = el('div', { id: 'streaming' });
  const reply = el('input', { 'aria-label': 'follow-up message', placeholder: 'a follow-up message', size: '40' });
  const controls = el('div', { class: 'row' }, reply,
    el('button', { onclick: () => api('POST', path + '/messages', { text: reply.value }).then(() => (reply.value = ''), show), text: 'Send' }),
    el('button', { onclick: () => api('POST', path + '/cancel').catch(show), text: 'Cancel run' }));
  main.replaceChildren(el('h2', { text: id }), head, approval, convo, streaming, controls);
  const refresh = async () => {
    const [status, transcript] = await Promise.all([api('GET', path), api('GET', path + '/transcript')]);
    const v = status.view || {};
    head.replaceChildren(el('p', {}, el('span', { class: 'status', id: 'run-status', text: v.status || status.executionStatus }),
      ' · ' + (v.steps ?? 0) + ' steps · ' + ((v.usage && (v.usage.input_tokens + v.usage.output_tokens)) || 0) + ' tokens · ' + money(v.costUsd) + (v.guard ? ' · guard ' + v.guard : '')));
    approval.replaceChildren(...(v.pendingApprovals || []).map((c) => {
      const reason = el('input', { 'aria-label': 'reason for denying', placeholder: 'reason (deny)' });
      const decide = (decision) => api('POST', path + '/approvals/' + encodeURIComponent(c.toolUseId), decision === 'deny' ? { decision, reason: reason.value || undefined } : { decision }).then(refresh, show);
      return el('div', { id: 'approval' }, el('strong', { text: 'Waiting for approval: ' + c.name }), el('pre', { text: JSON.stringify(c.input, null, 2) }),
        el('div', { class: 'row' }, el('button', { onclick: () => decide('approve'), text: 'Approve' }), reason, el('button', { onclick: () => decide('deny'), text: 'Deny' })));
    }));
    convo.replaceChildren(...transcript.messages.map((m) => el('div', { class: 'msg ' + m.role }, el('div', { class: 'role', text: m.role }),
      ...(typeof m.content === 'string' ? [el('div', { text: m.content })] : m.content.map(blockView)))));
  };
  await refresh();
  const controller = new AbortController();
  follow(path + '/events', controller.signal, (event, data) => {
    if (event === 'model_text') streaming.textContent += data.delta;
    else { if (event === 'step') streaming.textContent = ''; refresh().catch(show); }
  }).catch(() => {});
  return () => controller.abort();
}

/** Server-Sent Events over fetch (EventSource cannot send the Authorization header). */
async function follow(url, signal, onEvent) {
  const r = await fetch(url, { headers: token ? { authorization: 'Bearer ' + token } : {}, signal });
  const reader = r.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf('\n\n')) !== -1) {
      const lines = buffer.slice(0, cut).split('\n');
      buffer = buffer.slice(cut + 2);
      const field = (n) => lines.filter((l) => l.startsWith(n + ':')).map((l) => l.slice(n.length + 1).trim()).join('\n');
      if (field('event')) onEvent(field('event'), JSON.parse(field('data') || '{}'));
    }
  }
}

function show(err) { errorBox.textContent = String(err.message || err); }

async function route() {
  stop();
  stop = () => {};
  const m = /^#\/runs\/(.+)$/.exec(location.hash);
  try {
    stop = m ? await runPage(decodeURIComponent(m[1])) : await runsPage();
  } catch (err) { show(err); }
}
window.addEventListener('hashchange', route);
route();
`;
