// `serve`: the HTTP API (docs/http-api.md) in the foreground, until SIGINT or SIGTERM. No worker: runs it starts
// are taken by the workers of the task queue.
import { toolCatalog } from '../../config/tool-names.js';
import { tokensFromEnv } from '../../serve/auth.js';
import { expectPositionals, type FlagSpec, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { CONFIG_FLAG, loadCliConfig } from '../config.js';
import { logLine } from '../log.js';
import { stopRequested } from '../stop-waiting.js';
import { openTemporal } from '../temporal.js';

const SERVE_FLAGS = {
  port: { type: 'int', min: 0, max: 65_535, help: 'port to listen on (default 8787; 0 for any free one)' },
  host: { type: 'string', value: 'HOST', help: 'address to listen on (default 127.0.0.1)' },
  'allow-origin': { type: 'list', value: 'URL,...', help: 'origins a browser may call the API from (CORS); none by default' },
  webhook: {
    type: 'list',
    repeatable: true,
    value: 'URL',
    help: "every run started here also POSTs its events to URL (signed with the workers' $DURABLE_AGENT_WEBHOOK_SECRET); repeatable",
  },
  'temporal-ui': { type: 'string', value: 'URL', help: "the Temporal Web UI's address, for the console's link to a run (default $TEMPORAL_UI_URL)" },
  'insecure-no-auth': { type: 'boolean', help: 'serve without a token: only with --host 127.0.0.1, for a machine of your own' },
  ...CONFIG_FLAG,
} satisfies Record<string, FlagSpec>;

const USAGE = 'serve [--port N] [--host 127.0.0.1] [--allow-origin URL] [--webhook URL]... [--insecure-no-auth] [--config FILE]';

export const serve = defineCommand({
  usage: USAGE,
  description: `Serve the HTTP API until SIGINT or SIGTERM: start runs (POST /v1/runs), read them, follow their events
(Server-Sent Events), approve, deny, send, cancel, resume; the OpenAPI document is at /v1/openapi.json. Every
request needs "Authorization: Bearer <token>": DURABLE_AGENT_API_TOKEN may do everything,
DURABLE_AGENT_API_READ_TOKEN only read. It runs no worker: a \`worker\` on the task queue takes the runs it starts.
docs/http-api.md has the routes and the events.`,
  flags: SERVE_FLAGS,
  examples: ['serve --port 8787', 'serve --host 0.0.0.0 --allow-origin https://console.example.com', 'serve --insecure-no-auth'],
  run: serveCommand,
});

async function serveCommand({ flags, positionals }: Parsed<typeof SERVE_FLAGS>): Promise<number> {
  expectPositionals(positionals, [], USAGE);
  // The HTTP framework and Temporal's packages load here: `serve --help` and a bad flag answer without them.
  const [{ checkAuth, checkWebhooks, serve: startApi }, { installCliRuntime }] = await Promise.all([import('../../serve/index.js'), import('../runtime.js')]);
  // A missing token is exit 2 before any connection is made.
  checkAuth(flags.host ?? '127.0.0.1', tokensFromEnv(), flags['insecure-no-auth']);
  checkWebhooks(flags.webhook);
  const { config } = await loadCliConfig(flags.config);
  installCliRuntime('WARN');
  const temporal = await openTemporal({ allowEmbedded: false });
  try {
    const api = await startApi({
      client: temporal.client,
      port: flags.port,
      host: flags.host,
      allowOrigins: flags['allow-origin'],
      webhooks: flags.webhook,
      temporalUi: flags['temporal-ui'],
      insecureNoAuth: flags['insecure-no-auth'],
      catalog: toolCatalog(config),
      log: logLine,
    });
    logLine(`serving the HTTP API on ${api.url} (Temporal ${temporal.target.address}); OpenAPI at ${api.url}/v1/openapi.json`);
    if (flags['insecure-no-auth']) logLine('warning: --insecure-no-auth: anyone on this machine can start and steer runs');
    // Where the console is and which token signs in to it (named, never printed: tokens stay out of logs).
    else logLine(`console: ${api.url}/ (sign in with the value of DURABLE_AGENT_API_TOKEN, or DURABLE_AGENT_API_READ_TOKEN to only read)`);
    await stopRequested();
    logLine('stopping');
    await api.close();
    return 0;
  } finally {
    await temporal.close();
  }
}
