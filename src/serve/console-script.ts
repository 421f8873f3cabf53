// The web console's script (served at /console.js): the runs table at `#/` (filters in the address:
// `#/?status=running&limit=50`), a run's page at `#/runs/<id>` (console-run-page.ts). It calls the same API as
// everyone else, with the token the user types (kept in sessionStorage, for this tab).
import { AGENT_STATUSES } from '../core/types.js';
import { TOKEN_VARIABLES } from './auth.js';
import { CONSOLE_RUN_PAGE_JS } from './console-run-page.js';

const COMMON_JS = String.raw`'use strict';
const main = document.getElementById('main');
const errorBox = document.getElementById('error');
const TOKEN_VARIABLES = ${JSON.stringify(TOKEN_VARIABLES)};
const meta = (name) => (document.querySelector('meta[name="' + name + '"]') || {}).content || '';
const STATUSES = ${JSON.stringify(AGENT_STATUSES)};
let token = sessionStorage.getItem('durable-agent-token') || '';
let stop = () => {};

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
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
  if (r.status === 401) throw new SignInNeeded(!!token);
  if (!r.ok) throw new Error((json.error && json.error.message) || ('HTTP ' + r.status));
  errorBox.textContent = '';
  return json;
}

/** The server wants a token (none given, or one it does not accept): the sign-in page, not the raw 401. */
class SignInNeeded extends Error {
  constructor(rejected) {
    super(rejected ? 'the token was not accepted' : 'a token is needed');
    this.rejected = rejected;
  }
}

const code = (text) => el('code', { text });

/** The first screen when the server asks for a token: what the token is, where it comes from, and a field for it.
 * After it, the page the address names (a run's, or the table). */
function signInPage(rejected) {
  stop();
  stop = () => {};
  errorBox.textContent = '';
  if (rejected) {
    token = '';
    sessionStorage.removeItem('durable-agent-token');
  }
  const input = el('input', { id: 'token', type: 'password', autocomplete: 'off', required: '', size: '40' });
  const form = el('form', { id: 'token-form', class: 'row', onsubmit: (e) => {
    e.preventDefault();
    token = input.value.trim();
    sessionStorage.setItem('durable-agent-token', token);
    route();
  } }, el('label', { for: 'token', text: 'API token' }), input, el('button', { type: 'submit', text: 'Use token' }));
  main.replaceChildren(el('section', { id: 'sign-in', 'aria-labelledby': 'sign-in-title' },
    el('h2', { id: 'sign-in-title', text: 'Sign in' }),
    rejected ? el('p', { class: 'error', role: 'alert', text: 'This server did not accept that token. Check it against the server\'s environment (below), and paste it again.' }) : null,
    el('p', { text: 'This console shows and steers the agent runs of this durable-agent server. It reads them through the server\'s HTTP API, which asks for an API token.' }),
    el('p', {}, 'The token is the value of ', code(TOKEN_VARIABLES.operate), ' in the environment of the ', code('durable-agent serve'),
      ' process (it may do everything: approve, send, cancel), or of ', code(TOKEN_VARIABLES.read), ' (it may only look). ',
      'Whoever started the server set it: ask them, or read it where they keep it; the server never prints or logs it.'),
    form,
    el('p', { class: 'muted', text: 'The console keeps the token for this browser tab only (sessionStorage) and sends it to this server alone.' })));
  input.focus();
}

const money = (x) => (x === null || x === undefined ? '—' : '$' + Number(x).toFixed(4));
const when = (t) => (t ? new Date(t).toLocaleString() : '');
const count = (n) => Number(n || 0).toLocaleString('en-US');

async function runsPage(params) {
  const status = STATUSES.includes(params.get('status')) ? params.get('status') : '';
  const limit = ['20', '50', '100', '500'].includes(params.get('limit')) ? params.get('limit') : '20';
  const statusSel = el('select', { id: 'filter-status' }, el('option', { value: '', text: 'any' }), ...STATUSES.map((s) => el('option', { value: s, text: s.replace('_', ' ') })));
  statusSel.value = status;
  const limitSel = el('select', { id: 'filter-limit' }, ...['20', '50', '100', '500'].map((n) => el('option', { value: n, text: n })));
  limitSel.value = limit;
  // A schedule's or a task batch's runs (the "from" column's links): kept while the other filters change.
  const origin = ['schedule', 'batch'].map((k) => [k, params.get(k)]).find(([, v]) => v && /^[\w.@-]{1,100}$/.test(v));
  const apply = () => {
    const q = new URLSearchParams();
    if (origin) q.set(origin[0], origin[1]);
    if (statusSel.value) q.set('status', statusSel.value);
    if (limitSel.value !== '20') q.set('limit', limitSel.value);
    location.hash = '#/' + (q.toString() ? '?' + q : '');
  };
  statusSel.addEventListener('change', apply);
  limitSel.addEventListener('change', apply);
  const live = el('input', { type: 'checkbox', id: 'live', checked: '' });
  const updated = el('span', { id: 'updated', class: 'muted', 'aria-live': 'off' });
  const filters = el('form', { class: 'row', role: 'search', 'aria-label': 'filter runs', onsubmit: (e) => e.preventDefault() },
    el('label', { for: 'filter-status', text: 'Status' }), statusSel,
    el('label', { for: 'filter-limit', text: 'Show' }), limitSel,
    el('label', { for: 'live' }, live, ' live (every 3 s)'), updated);
  const caption = (status ? 'runs that are ' + status.replace('_', ' ') : 'recent runs, newest first') + (origin ? ' · ' + origin[0] + ' ' + origin[1] : '');
  const table = el('table', {}, el('caption', { class: 'muted', text: caption }),
    el('thead', {}, el('tr', {}, ...['run', 'status', 'parent', 'model', 'steps', 'tokens', 'cost', 'guard', 'started', 'from'].map((h) => el('th', { scope: 'col', text: h })))));
  const body = el('tbody');
  table.append(body);
  main.replaceChildren(el('h2', { text: 'Runs' }), filters, table);
  const load = async () => {
    const q = new URLSearchParams({ limit });
    if (status) q.set('status', status);
    if (origin) q.set(origin[0], origin[1]);
    const { runs } = await api('GET', '/v1/runs?' + q);
    const rows = runs.filter((r) => r.current).map((r) => el('tr', {},
      el('td', {}, el('a', { href: '#/runs/' + encodeURIComponent(r.workflowId), text: r.workflowId })),
      el('td', { class: 'status', text: r.attributes.status || r.executionStatus.toLowerCase() }),
      // A sub-agent's run: the run that delegated to it (a link to its page); a top-level run has none.
      el('td', { class: 'parent' }, r.parentWorkflowId ? el('a', { href: '#/runs/' + encodeURIComponent(r.parentWorkflowId), text: r.parentWorkflowId }) : el('span', { class: 'muted', text: '—' })),
      el('td', { text: r.attributes.model || '' }),
      el('td', { class: 'num', text: String(r.attributes.steps ?? '') }),
      el('td', { class: 'num', text: r.attributes.tokens === undefined ? '' : count(r.attributes.tokens) }),
      el('td', { class: 'num', text: money(r.attributes.costUsd) }),
      el('td', { text: r.attributes.guard || '' }),
      el('td', { text: when(r.startTime) }),
      // The schedule that started it, or the task batch (start --tasks) it belongs to: a link to its other runs.
      el('td', { class: 'from' }, r.schedule ? el('a', { href: '#/?schedule=' + encodeURIComponent(r.schedule), text: 'schedule ' + r.schedule })
        : r.taskBatch ? el('a', { href: '#/?batch=' + encodeURIComponent(r.taskBatch), text: 'batch ' + r.taskBatch }) : el('span', { class: 'muted', text: '—' }))));
    body.replaceChildren(...(rows.length ? rows : [el('tr', {}, el('td', { colspan: '10', class: 'muted', text: 'no runs match' }))]));
    updated.textContent = 'updated ' + new Date().toLocaleTimeString();
  };
  await load();
  const timer = setInterval(() => { if (live.checked) load().catch(show); }, 3000);
  return () => clearInterval(timer);
}
`;

const ROUTER_JS = String.raw`
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

function show(err) {
  if (err instanceof SignInNeeded) signInPage(err.rejected);
  else errorBox.textContent = String(err.message || err);
}

async function route() {
  stop();
  stop = () => {};
  const [path, query] = location.hash.replace(/^#/, '').split('?');
  const m = /^\/runs\/(.+)$/.exec(path || '');
  try {
    stop = m ? await runPage(decodeURIComponent(m[1])) : await runsPage(new URLSearchParams(query || ''));
  } catch (err) { show(err); }
}
window.addEventListener('hashchange', route);
route();
`;

export const CONSOLE_JS = COMMON_JS + CONSOLE_RUN_PAGE_JS + ROUTER_JS;
