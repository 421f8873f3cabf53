// The HTTP API of `durable-agent serve`: routes over the typed client (src/client), nothing reimplemented. Every
// answer that is not a success is one JSON object `{ "error": { "type", "message", "field"? } }`, never a stack.
import { createHash } from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowExecutionDescription } from '@temporalio/client';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { streamSSE } from 'hono/streaming';
import {
  answerElicitation,
  approveToolCall,
  completeToolCall,
  InvalidSettingsError,
  cancelRun,
  denyToolCall,
  getAgentResult,
  getStatus,
  getTranscript,
  getTurnUsage,
  listRuns,
  resumeAgent,
  RunNotResumableError,
  ForkError,
  sendFollowUp,
  startAgent,
  ToolCompletionError,
  type ResumeOptions,
} from '../client/index.js';
import { parseDuration } from '../core/duration.js';
import { EncryptionKeyError } from '../codec/keys.js';
import { AGENT_WORKFLOW } from '../workflows/definitions.js';
import { AGENT_STATUSES, type ElicitationReply } from '../core/types.js';
import { parseEventId } from '../core/run-events.js';
import { authorize, type ApiTokens } from './auth.js';
import { EventHub } from './events.js';
import { openApiDocument } from './openapi.js';
import { consoleHtml } from './console-page.js';
import { CONSOLE_JS } from './console-script.js';
import type { RunInput } from '../config/run-input.js';
import { SettingsInputError } from '../core/settings-check.js';
import { forkRequest } from './fork-request.js';
import { parseRunRequest, RequestError } from './run-request.js';
import { scheduleRoutes } from './schedules.js';

export interface ApiOptions {
  client: Client;
  /** Turns a run request's settings into the run's (defaults filled, its tools checked against the tool catalog). */
  settings(values: Record<string, unknown>): Promise<RunInput>;
  taskQueue: string;
  /** Undefined: no auth (only allowed on 127.0.0.1, checked by `serve`). */
  tokens?: ApiTokens;
  allowOrigins?: string[];
  /** Request bodies above this are 413 (default 2 MB: a task fits one Temporal payload). */
  bodyLimitBytes?: number;
  hub: EventHub;
  /** The Temporal Web UI's address, for the console's link to a run. */
  temporalUi?: string;
  log?: (line: string) => void;
}

/** Served without a token: they hold no run's data (the console asks for the token, then calls the API). */
const PUBLIC_PATHS = new Set(['/', '/console.js', '/v1/openapi.json']);
const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const MAX_WAIT_MS = 5 * 60_000;
const MAX_LIST = 1000;

export function createApi(options: ApiOptions): Hono {
  const { client, hub } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const app = new Hono();

  app.onError((err, c) => answerError(c, err, log));
  app.notFound((c) => fail(c, 404, 'not_found', `no route ${c.req.method} ${c.req.path} (see /v1/openapi.json)`));
  if (options.allowOrigins?.length) {
    app.use('*', cors({ origin: options.allowOrigins, allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'Last-Event-ID'] }));
  }
  app.use('*', async (c, next) => {
    if (options.tokens && !PUBLIC_PATHS.has(c.req.path)) {
      const reads = c.req.method === 'GET' || c.req.method === 'HEAD';
      const denied = authorize(options.tokens, c.req.header('authorization'), reads ? 'read' : 'operate');
      if (denied) return fail(c, denied.status, denied.type, denied.message);
    }
    await next();
  });
  if (!options.tokens) {
    // No token (--insecure-no-auth, loopback only): any web page the user visits could otherwise POST here (a
    // text/plain form needs no CORS preflight) or, through DNS rebinding, read runs. So a request must name this
    // machine as its Host, and a POST must say it sends JSON (which a page can only do after a preflight).
    app.use('*', async (c, next) => {
      const host = (c.req.header('host') ?? '').replace(/:\d+$/, '');
      if (!LOOPBACK_HOSTS.has(host)) return fail(c, 403, 'forbidden', `without a token, requests must be for a loopback host (got Host "${host.slice(0, 60)}")`);
      if (c.req.method === 'POST' && !/^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
        return fail(c, 415, 'unsupported_media_type', 'a POST must send Content-Type: application/json');
      }
      await next();
    });
  }
  // A run route answers for agent runs only: not for the team's other workflows in the namespace.
  app.use('/v1/runs/:id/*', agentRunsOnly(client));
  app.use('/v1/runs/:id', agentRunsOnly(client));
  app.use(
    '*',
    bodyLimit({
      maxSize: options.bodyLimitBytes ?? 2_000_000,
      onError: (c) => fail(c, 413, 'too_large', `the body is over ${options.bodyLimitBytes ?? 2_000_000} bytes`),
    }),
  );

  app.get('/v1/openapi.json', (c) => c.json(openApiDocument()));
  const page = consoleHtml({ temporalUi: options.temporalUi, namespace: (client.options as { namespace?: string } | undefined)?.namespace ?? 'default' });
  app.get('/', (c) => c.html(page, 200, { 'content-security-policy': CONSOLE_CSP, 'x-content-type-options': 'nosniff' }));
  app.get('/console.js', (c) => c.body(CONSOLE_JS, 200, { 'content-type': 'text/javascript; charset=utf-8', 'x-content-type-options': 'nosniff' }));

  app.post('/v1/runs', async (c) => {
    const request = parseRunRequest(await jsonBody(c));
    const key = c.req.header('idempotency-key');
    if (key !== undefined && (key.length === 0 || key.length > 200)) throw new RequestError('Idempotency-Key: 1 to 200 characters', 'Idempotency-Key');
    const keyed = key !== undefined ? `run-${createHash('sha256').update(key).digest('hex').slice(0, 24)}` : undefined;
    if (keyed && request.id && request.id !== keyed) {
      throw new RequestError('give either an Idempotency-Key header or an id, not both', 'id');
    }
    const { settings, priority } = await options.settings(request.values);
    const started = await startAgent(client, { task: request.task, settings, workflowId: request.id ?? keyed, taskQueue: options.taskQueue, priority });
    return c.json(started, started.attached ? 200 : 201);
  });

  app.get('/v1/runs', async (c) => {
    const status = c.req.query('status');
    if (status !== undefined && !AGENT_STATUSES.includes(status)) {
      throw new RequestError(`status must be one of ${AGENT_STATUSES.join(', ')} (got "${status}")`, 'status');
    }
    const limit = intQuery(c, 'limit', 20, 1, MAX_LIST);
    // A schedule's runs (TemporalScheduledById) or a task batch's (start --tasks: AgentTaskBatch).
    const [schedule, batch] = (['schedule', 'batch'] as const).map((name) => {
      const v = c.req.query(name);
      if (v !== undefined && !/^[\w.@-]{1,100}$/.test(v)) throw new RequestError(`${name}: "${v.slice(0, 60)}" is not a ${name} name (letters, digits and . _ @ -)`, name);
      return v;
    });
    return c.json({ runs: await listRuns(client, { status, limit, schedule, batch }) });
  });

  app.get('/v1/runs/:id', async (c) => c.json(await getStatus(client, runId(c))));
  app.get('/v1/runs/:id/transcript', async (c) => c.json({ messages: await getTranscript(client, runId(c)) }));
  app.get('/v1/runs/:id/usage', async (c) => c.json({ turns: await getTurnUsage(client, runId(c)) }));

  app.get('/v1/runs/:id/result', async (c) => {
    const id = runId(c);
    const wait = c.req.query('wait');
    let waitMs = 0;
    if (wait !== undefined) {
      try {
        waitMs = parseDuration(wait);
      } catch (err) {
        throw new RequestError(`wait: ${(err as Error).message}`, 'wait');
      }
      if (waitMs > MAX_WAIT_MS) throw new RequestError(`wait must be at most 5m (got "${wait}")`, 'wait');
    }
    const description = await client.workflow.getHandle(id).describe();
    if (description.status.name !== 'RUNNING') return c.json(await getAgentResult(client, id));
    if (waitMs === 0) return c.json({ workflowId: id, running: true }, 202);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), waitMs);
    // A caller that hangs up ends the long poll too.
    c.req.raw.signal.addEventListener('abort', () => controller.abort(), { once: true });
    try {
      return c.json(await client.withAbortSignal(controller.signal, () => getAgentResult(client, id)));
    } catch (err) {
      if (controller.signal.aborted) return c.json({ workflowId: id, running: true }, 202);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  });

  app.post('/v1/runs/:id/approvals/:toolUseId', async (c) => {
    const body = objectBody(await jsonBody(c), ['decision', 'reason']);
    const { decision, reason } = body;
    if (decision !== 'approve' && decision !== 'deny') throw new RequestError('decision must be "approve" or "deny"', 'decision');
    if (reason !== undefined && typeof reason !== 'string') throw new RequestError('reason must be a string', 'reason');
    if (reason !== undefined && decision === 'approve') throw new RequestError('reason goes with "deny" only', 'reason');
    const toolUseId = c.req.param('toolUseId');
    const ack =
      decision === 'approve'
        ? await whileRunning(c, 'approve', () => approveToolCall(client, runId(c), toolUseId))
        : await whileRunning(c, 'deny', () => denyToolCall(client, runId(c), toolUseId, reason));
    return c.json(ack);
  });

  // An MCP server's question (elicitation) the run holds: `elicitationId` may be left out when one is pending. The
  // run's update checks the answer against the requested schema (defaults filled) and refuses it with one line.
  app.post('/v1/runs/:id/answers', async (c) => {
    const { elicitationId, action, content } = objectBody(await jsonBody(c), ['elicitationId', 'action', 'content']);
    if (elicitationId !== undefined && (typeof elicitationId !== 'string' || !elicitationId)) {
      throw new RequestError('elicitationId must be the question\'s id, e.g. "toolu_01/1"', 'elicitationId');
    }
    if (action !== 'accept' && action !== 'decline' && action !== 'cancel') throw new RequestError('action must be "accept", "decline" or "cancel"', 'action');
    if (content !== undefined && (action !== 'accept' || !content || typeof content !== 'object' || Array.isArray(content))) {
      throw new RequestError('content is the answer\'s fields, a JSON object, with "accept" only', 'content');
    }
    const reply: ElicitationReply = { action, ...(elicitationId ? { elicitationId } : {}), ...(content ? { content: content as Record<string, unknown> } : {}) };
    return c.json(await whileRunning(c, 'answer a question of', () => answerElicitation(client, runId(c), reply)));
  });

  // The result of a tool call that completes later (the tool handed out `context.completionToken`): the call's
  // run is named by the token, so this route has no run id.
  app.post('/v1/completions', async (c) => {
    const { token, result, isError } = objectBody(await jsonBody(c), ['token', 'result', 'isError']);
    if (typeof token !== 'string' || !token) throw new RequestError('token: the completion token the tool handed out is required', 'token');
    if (typeof result !== 'string') throw new RequestError('result must be the call\'s result as text', 'result');
    if (isError !== undefined && typeof isError !== 'boolean') throw new RequestError('isError must be true or false', 'isError');
    return c.json(await completeToolCall(client, token, isError ? { content: result, isError: true } : result));
  });

  app.post('/v1/runs/:id/messages', async (c) => {
    const { text } = objectBody(await jsonBody(c), ['text']);
    if (typeof text !== 'string' || !text.trim()) throw new RequestError('text: a non-empty string is required', 'text');
    return c.json(await whileRunning(c, 'send a message to', () => sendFollowUp(client, runId(c), text)), 202);
  });

  app.post('/v1/runs/:id/cancel', async (c) => {
    await whileRunning(c, 'cancel', () => cancelRun(client, runId(c)));
    return c.json({ workflowId: runId(c), cancelRequested: true }, 202);
  });

  app.post('/v1/runs/:id/resume', async (c) => {
    const body = objectBody(await jsonBody(c, true), ['moreSteps', 'moreBudgetTokens', 'deadline']);
    const resume: ResumeOptions = { taskQueue: options.taskQueue };
    for (const field of ['moreSteps', 'moreBudgetTokens'] as const) {
      const v = body[field];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new RequestError(`${field} must be a whole number >= 1`, field);
      resume[field] = v;
    }
    if (body.deadline !== undefined) {
      if (typeof body.deadline !== 'string') throw new RequestError('deadline must be a duration such as "30m"', 'deadline');
      try {
        resume.deadlineMs = parseDuration(body.deadline);
      } catch (err) {
        throw new RequestError(`deadline: ${(err as Error).message}`, 'deadline');
      }
    }
    return c.json(await resumeAgent(client, runId(c), resume), 201);
  });

  app.post('/v1/runs/:id/fork', async (c) => c.json(await forkRequest(await jsonBody(c), runId(c), client, options), 201));

  app.get('/v1/runs/:id/events', async (c) => {
    const id = runId(c);
    await client.workflow.getHandle(id).describe(); // 404 before the stream opens
    const last = c.req.header('last-event-id') ?? c.req.query('lastEventId');
    if (last !== undefined && !parseEventId(last)) throw new RequestError(`Last-Event-ID "${last.slice(0, 40)}" is not an id this stream sent`, 'Last-Event-ID');
    return streamSSE(c, async (stream) => {
      let unsubscribe = () => {};
      let queue = Promise.resolve();
      const send = (write: () => Promise<void>) => (queue = queue.then(write).catch(() => stream.abort()));
      // A comment now and then keeps proxies from closing a quiet stream (a run waiting hours for approval).
      const keepAlive = setInterval(() => send(() => stream.write(': keep-alive\n\n').then(() => undefined)), 15_000);
      await new Promise<void>((resolve) => {
        stream.onAbort(resolve);
        unsubscribe = hub.subscribe(
          id,
          last,
          (event) => send(() => stream.writeSSE({ id: event.id, event: event.event, data: JSON.stringify(event.data) })),
          () => void send(async () => resolve()),
        );
      });
      clearInterval(keepAlive);
      unsubscribe();
      await queue;
    });
  });

  scheduleRoutes(app, options, jsonBody);

  return app;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The run a request names, as `agentRunsOnly` found it: a steering route reads its status from here. */
const describedRuns = new WeakMap<Context, { describe(): Promise<WorkflowExecutionDescription>; status: string }>();

function agentRunsOnly(client: Client) {
  return async (c: Context, next: () => Promise<void>) => {
    if (c.req.method === 'OPTIONS') return next();
    const handle = client.workflow.getHandle(runId(c));
    const description = await handle.describe();
    if (description.type !== AGENT_WORKFLOW) return fail(c, 404, 'not_found', `no run with id "${c.req.param('id') ?? ''}" (that workflow is not an agent run)`);
    describedRuns.set(c, { describe: () => handle.describe(), status: description.status.name });
    await next();
  };
}

/** A steering route (a message, a cancel, a decision, an answer) acts on a running run only: one that has ended is
 * 409 naming its status, in the CLI's words (src/cli/commands/steer.ts), not a 404 (the run exists) nor a 202
 * (nothing would happen). A run that ends between the check and the call is answered the same way. */
async function whileRunning<T>(c: Context, what: string, act: () => Promise<T>): Promise<T> {
  const run = describedRuns.get(c); // by the context: bodyLimit may swap the request for a wrapped one
  const ended = (status: string) =>
    new RequestError(`cannot ${what} run ${runId(c)}: it has ended (${status})`, undefined, 409, 'run_ended');
  if (run && run.status !== 'RUNNING') throw ended(run.status);
  try {
    return await act();
  } catch (err) {
    if (run && err instanceof WorkflowNotFoundError) {
      const now = await run.describe().catch(() => undefined);
      if (now && now.status.name !== 'RUNNING') throw ended(now.status.name);
    }
    throw err;
  }
}

function runId(c: Context): string {
  const id = c.req.param('id') ?? '';
  if (!/^[\w.:@-]{1,255}$/.test(id)) throw new RequestError(`the run id "${id.slice(0, 60)}" is not a workflow id`, 'id', 404, 'not_found');
  return id;
}

async function jsonBody(c: Context, optional = false): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) {
    if (optional) return {};
    throw new RequestError('the body is empty: send a JSON object');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new RequestError(`the body is not valid JSON: ${(err as Error).message.split('\n')[0]}`);
  }
}

function objectBody(body: unknown, fields: string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new RequestError('the body must be a JSON object');
  const unknown = Object.keys(body).find((k) => !fields.includes(k));
  if (unknown !== undefined) throw new RequestError(`unknown field "${unknown}" (fields: ${fields.join(', ')})`, unknown);
  return body as Record<string, unknown>;
}

function intQuery(c: Context, name: string, fallback: number, min: number, max: number): number {
  const raw = c.req.query(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new RequestError(`${name} must be a whole number from ${min} to ${max} (got "${raw.slice(0, 20)}")`, name);
  return n;
}

function fail(c: Context, status: number, type: string, message: string, field?: string): Response {
  return c.json({ error: { type, message, ...(field ? { field } : {}) } }, status as 400);
}

function answerError(c: Context, err: unknown, log: (line: string) => void): Response {
  if (err instanceof RequestError) return fail(c, err.status, err.type, err.message, err.field);
  if (err instanceof SettingsInputError) return fail(c, 400, 'invalid_request', err.message, err.field);
  // The library's settings check, should one reach it past the request's (its field is the AgentSettings key).
  if (err instanceof InvalidSettingsError) return fail(c, 400, 'invalid_request', err.message, err.field);
  if (err instanceof WorkflowNotFoundError) return fail(c, 404, 'not_found', `no run with id "${c.req.param('id') ?? ''}"`);
  if (err instanceof WorkflowUpdateFailedError) return fail(c, 409, 'conflict', err.cause?.message ?? err.message);
  if (err instanceof RunNotResumableError) return fail(c, 409, 'conflict', err.message);
  if (err instanceof ForkError) return fail(c, 400, 'invalid_request', err.message, 'fromStep');
  if (err instanceof ToolCompletionError) return fail(c, 409, 'conflict', err.message);
  // This server cannot read the run (no key, or not that key id): say which key, not "internal".
  if (err instanceof EncryptionKeyError) return fail(c, 409, 'encryption_key', err.message.split('\n')[0]);
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  log(`serve: ${c.req.method} ${c.req.path}: ${first}`);
  return fail(c, 500, 'internal', `the request failed: ${first.slice(0, 300)}`);
}
