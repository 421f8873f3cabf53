// The HTTP API of `durable-agent serve`: routes over the typed client (src/client), nothing reimplemented. Every
// answer that is not a success is one JSON object `{ "error": { "type", "message", "field"? } }`, never a stack.
// Here: the app, what every request goes through (CORS, tokens, the loopback guard, agent runs only, the body limit),
// the console and the error answers; the routes of runs are in run-routes.ts, those of schedules in schedules.ts.
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { InvalidSettingsError, RunNotResumableError, ForkError, ToolCompletionError } from '../client/index.js';
import { EncryptionKeyError } from '../codec/keys.js';
import { authorize, type ApiTokens } from './auth.js';
import { openApiDocument } from './openapi.js';
import { consoleHtml } from './console-page.js';
import { CONSOLE_JS } from './console-script.js';
import { SettingsInputError } from '../core/settings-check.js';
import { fail } from './http.js';
import { RequestError } from './run-request.js';
import { agentRunsOnly, runRoutes, type RunRoutesOptions } from './run-routes.js';
import { scheduleRoutes } from './schedules.js';

/** The run routes' options (the client, the run settings, the task queue, the event hub), and what every request goes
 * through. */
export interface ApiOptions extends RunRoutesOptions {
  /** Undefined: no auth (only allowed on 127.0.0.1, checked by `serve`). */
  tokens?: ApiTokens;
  /** Origins a browser may call the API from (CORS); none by default. */
  allowOrigins?: string[];
  /** Request bodies above this are 413 (default 2 MB: a task fits one Temporal payload). */
  bodyLimitBytes?: number;
  /** The Temporal Web UI's address, for the console's link to a run. */
  temporalUi?: string;
  log?: (line: string) => void;
}

/** Served without a token: they hold no run's data (the console asks for the token, then calls the API). */
const PUBLIC_PATHS = new Set(['/', '/console.js', '/v1/openapi.json']);
const CONSOLE_CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function createApi(options: ApiOptions): Hono {
  const { client } = options;
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

  runRoutes(app, options);
  scheduleRoutes(app, options);

  return app;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

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
  // A request whose caller hung up (or that the server's close ended) is nobody's failure.
  if (!c.req.raw.signal.aborted) log(`serve: ${c.req.method} ${c.req.path}: ${first}`);
  return fail(c, 500, 'internal', `the request failed: ${first.slice(0, 300)}`);
}
