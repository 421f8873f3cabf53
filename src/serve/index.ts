// `serve()`: the HTTP API (src/serve/app.ts) on a port, over a client of the caller's. It runs no worker: runs
// it starts are taken by the workers of its task queue, and any run, started by any path, can be read.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { createAdaptorServer } from '@hono/node-server';
import { needsWorkerCatalog, toolCatalog, type ToolCatalog } from '../config/tool-names.js';
import { runInput, withoutToolNames, type RunInput } from '../config/run-input.js';
import { startCatalog } from '../client/worker-catalog.js';
import { DEFAULTS } from '../core/policies.js';
import { SettingsInputError } from '../core/settings-check.js';
import { validateJsonSchema } from '../tools/validate.js';
import { UsageError } from '../core/args.js';
import { webhookUrlProblem } from '../core/webhooks.js';
import { createApi, type ApiOptions } from './app.js';
import { tokensFromEnv, TOKEN_VARIABLES, type ApiTokens } from './auth.js';
import { EventHub } from './events.js';

export type { ApiTokens } from './auth.js';

export interface ServeOptions extends Pick<ApiOptions, 'client' | 'allowOrigins' | 'bodyLimitBytes' | 'log'> {
  /** Default 8787; 0 for any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: DURABLE_AGENT_API_TOKEN (operate) and DURABLE_AGENT_API_READ_TOKEN (read) from the environment. */
  tokens?: ApiTokens;
  /** Serve without auth: only with host 127.0.0.1. */
  insecureNoAuth?: boolean;
  /** Where runs started here are queued (default AGENT_TASK_QUEUE or the default queue). */
  taskQueue?: string;
  /** The tools this process knows of (a config file's), besides what the task queue's workers offer. */
  catalog?: ToolCatalog;
  /** How often a run with event subscribers is read (default 300 ms). */
  eventsIntervalMs?: number;
  /** Webhook URLs every run started here gets, besides the `webhook` of its request (`serve --webhook`). */
  webhooks?: string[];
  /** The Temporal Web UI's address, for the console's link to a run (default: $TEMPORAL_UI_URL; none: no link). */
  temporalUi?: string;
}

export interface ApiServer {
  /** `http://host:port`. */
  url: string;
  port: number;
  /** The event pollers (one per run followed). */
  events: EventHub;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function serve(options: ServeOptions): Promise<ApiServer> {
  const host = options.host ?? '127.0.0.1';
  const tokens = checkAuth(host, options.tokens ?? tokensFromEnv(), options.insecureNoAuth);
  const taskQueue = options.taskQueue ?? (process.env.AGENT_TASK_QUEUE || DEFAULTS.taskQueue);
  const local = options.catalog ?? toolCatalog({});
  const webhooks = checkWebhooks(options.webhooks);
  const hub = new EventHub(options.client, options.eventsIntervalMs);
  const app = createApi({
    client: options.client,
    taskQueue,
    tokens,
    allowOrigins: options.allowOrigins,
    bodyLimitBytes: options.bodyLimitBytes,
    hub,
    temporalUi: options.temporalUi ?? (process.env.TEMPORAL_UI_URL || undefined),
    log: options.log,
    settings: (values) => runSettings(options.client, taskQueue, local, withWebhooks(values, webhooks), options.log),
  });
  // The requests being answered: close() waits for them, so that whoever closes the client after it does not cut a
  // call of theirs (@temporalio/client 1.24 throws "Channel has been shut down" from a retry timer that outlives
  // Connection.close(), uncaught, when a call was waiting to retry).
  const answering = new Set<Promise<unknown>>();
  const fetch: typeof app.fetch = (...args) => {
    const answer = Promise.resolve(app.fetch(...args));
    answering.add(answer);
    answer.then(
      () => answering.delete(answer),
      () => answering.delete(answer),
    );
    return answer;
  };
  const server = createAdaptorServer({ fetch, hostname: host, port: options.port ?? 8787 });
  server.listen(options.port ?? 8787, host);
  await once(server, 'listening'); // rejects with the server's 'error' (a port in use)
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    events: hub,
    async close() {
      const feedsEnded = hub.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await Promise.allSettled([feedsEnded, ...answering]);
    },
  };
}

/** The tokens to require, or undefined for none; a UsageError when that is not allowed. */
export function checkAuth(host: string, tokens: ApiTokens | undefined, insecureNoAuth = false): ApiTokens | undefined {
  if (!tokens && !insecureNoAuth) {
    throw new UsageError(
      `no API token: set ${TOKEN_VARIABLES.operate} (and optionally ${TOKEN_VARIABLES.read} for read-only callers), ` +
        'or pass --insecure-no-auth to serve without auth on 127.0.0.1',
    );
  }
  if (!tokens && !LOOPBACK.has(host)) {
    throw new UsageError(`--insecure-no-auth is only allowed with --host 127.0.0.1 (got --host ${host}): set ${TOKEN_VARIABLES.operate} instead`);
  }
  return tokens;
}

/** The server's webhook URLs, checked: a UsageError naming the first bad one. */
export function checkWebhooks(urls: string[] = []): string[] {
  for (const url of urls) {
    const problem = webhookUrlProblem(url);
    if (problem) throw new UsageError(`--webhook ${problem}`);
  }
  return urls;
}

/** The request's webhooks after the server's (each URL once). */
function withWebhooks(values: Record<string, unknown>, webhooks: string[]): Record<string, unknown> {
  if (webhooks.length === 0) return values;
  return { ...values, webhooks: [...new Set([...webhooks, ...((values.webhooks as string[] | undefined) ?? [])])] };
}

/** `start`'s checks: this process's catalog when it can vouch for the tools, else the workers' answer. */
async function runSettings(
  client: Client,
  taskQueue: string,
  local: ToolCatalog,
  values: Record<string, unknown>,
  log: (line: string) => void = () => undefined,
): Promise<RunInput> {
  const check = { compileSchema: validateJsonSchema };
  if (!needsWorkerCatalog(values.tools as string[] | undefined, local)) return runInput(values, local, check);
  runInput(withoutToolNames(values), local, check);
  const { catalog, hint } = await startCatalog(client, taskQueue, local, { log, workerCommand: 'durable-agent worker' });
  try {
    return runInput(values, catalog, check);
  } catch (err) {
    throw err instanceof SettingsInputError && hint ? new SettingsInputError(`${err.message}. ${hint}`, err.field) : err;
  }
}
