// @ts-check
// The triage bot the way a team runs it: the issue tracker's "issue opened" webhook starts a triage run through
// `durable-agent serve`, and the run's own webhook tells this receiver when it is done. No dependency beyond Node
// and the package (for `verifyWebhook`).
//
//   POST /issue-opened   the tracker's webhook: { "action": "opened", "issue": { "number": 39, "title": "..." } }
//                        (signed, when TRACKER_WEBHOOK_SECRET is set, as GitHub signs: X-Hub-Signature-256:
//                        sha256=<HMAC of the body>) → POST $DURABLE_AGENT_URL/v1/runs, once per issue
//   POST /agent-events   the run's webhook (run.completed, approval.needed, ...), checked with verifyWebhook
//
//   DURABLE_AGENT_URL=http://127.0.0.1:8787 DURABLE_AGENT_API_TOKEN=... DURABLE_AGENT_WEBHOOK_SECRET=... \
//   RECEIVER_URL=http://127.0.0.1:8790 PORT=8790 node examples/triage/receiver.js
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { verifyWebhook } from 'durable-agent';

export const TRIAGE_TOOLS = ['search_issues', 'get_issue', 'add_label', 'add_comment'];

/**
 * @typedef {object} ReceiverOptions
 * @property {string} api the `serve` address, e.g. http://127.0.0.1:8787
 * @property {string} token an operate token of that server (DURABLE_AGENT_API_TOKEN)
 * @property {string} [publicUrl] this receiver's address as the workers reach it: the runs' webhook is <publicUrl>/agent-events
 * @property {string} [webhookSecret] the workers' DURABLE_AGENT_WEBHOOK_SECRET, to check the runs' events
 * @property {string} [trackerSecret] the tracker's webhook secret, to check its deliveries (none: not checked)
 * @property {string[]} [approve] tools whose calls wait for a person (e.g. add_comment)
 * @property {(event: import('durable-agent').WebhookEvent) => void} [onRunEvent] called with each verified run event
 * @property {(line: string) => void} [log]
 */

/** @param {ReceiverOptions} options */
export function createTriageReceiver(options) {
  const log = options.log ?? ((line) => console.log(line));
  return createServer(async (req, res) => {
    /** @param {number} status @param {unknown} [body] */
    const answer = (status, body) => {
      res.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' }).end(body === undefined ? undefined : JSON.stringify(body));
    };
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST' && req.url === '/issue-opened') {
        if (options.trackerSecret && !trackerSignatureOk(options.trackerSecret, body, req.headers['x-hub-signature-256'])) {
          return answer(401, { error: 'bad or missing X-Hub-Signature-256' });
        }
        const delivery = JSON.parse(body);
        const number = delivery?.issue?.number;
        if (delivery?.action !== 'opened') return answer(204); // edited, closed, ...: not for the bot
        if (!Number.isInteger(number)) return answer(400, { error: 'issue.number: a whole number is required' });
        const run = await startTriage(options, number);
        log(`issue #${number} opened: triage run ${run.workflowId}${run.attached ? ' (already started)' : ''}`);
        return answer(202, run);
      }
      if (req.method === 'POST' && req.url === '/agent-events') {
        const event = verifyWebhook({ secret: options.webhookSecret ?? '', body, headers: req.headers });
        log(`run ${event.workflowId}: ${event.type}${event.type.startsWith('run.') ? `: ${String(event.data.text ?? '').split('\n')[0]}` : ''}`);
        options.onRunEvent?.(event);
        return answer(204);
      }
      return answer(404, { error: `no route ${req.method} ${req.url}` });
    } catch (err) {
      const status = err instanceof SyntaxError ? 400 : /** @type {any} */ (err)?.name === 'WebhookVerificationError' ? 401 : 502;
      return answer(status, { error: err instanceof Error ? err.message : String(err) });
    }
  });
}

/** One run per opened issue: the Idempotency-Key makes a redelivered webhook answer the run it started. */
async function startTriage(/** @type {ReceiverOptions} */ options, /** @type {number} */ number) {
  const response = await fetch(`${options.api.replace(/\/+$/, '')}/v1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json', 'idempotency-key': `triage-issue-${number}` },
    body: JSON.stringify({
      task: `Triage issue #${number}`,
      tools: TRIAGE_TOOLS,
      ...(options.approve?.length ? { approve: options.approve } : {}),
      ...(options.publicUrl ? { webhooks: [`${options.publicUrl.replace(/\/+$/, '')}/agent-events`] } : {}),
    }),
  });
  const json = /** @type {any} */ (await response.json());
  if (!response.ok) throw new Error(`the agent server answered ${response.status}: ${json?.error?.message ?? ''}`);
  return /** @type {{ workflowId: string, runId: string, attached: boolean }} */ (json);
}

/** GitHub's scheme: X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>. */
function trackerSignatureOk(/** @type {string} */ secret, /** @type {string} */ body, /** @type {unknown} */ header) {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(typeof header === 'string' ? header : '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 8790);
  const server = createTriageReceiver({
    api: process.env.DURABLE_AGENT_URL ?? 'http://127.0.0.1:8787',
    token: process.env.DURABLE_AGENT_API_TOKEN ?? '',
    publicUrl: process.env.RECEIVER_URL ?? `http://127.0.0.1:${port}`,
    webhookSecret: process.env.DURABLE_AGENT_WEBHOOK_SECRET,
    trackerSecret: process.env.TRACKER_WEBHOOK_SECRET,
    approve: process.env.TRIAGE_APPROVE ? process.env.TRIAGE_APPROVE.split(',') : undefined,
  });
  server.listen(port, '127.0.0.1', () => console.log(`triage receiver on http://127.0.0.1:${port} (POST /issue-opened)`));
}
