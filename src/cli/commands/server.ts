// `server`: the embedded Temporal dev server with its Web UI, in the foreground, until Ctrl-C.
import { keyRingFromEnv } from '../../codec/keys.js';
import { expectPositionals, UsageError, type FlagSpec, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { logLine } from '../log.js';
import { stopRequested } from '../stop-waiting.js';
import { EXIT, printText } from '../output.js';
import { isPortFree } from '../../devserver/ports.js';
import { EMBEDDED_DB } from '../temporal.js';
import { openCodecServer } from './codec-server.js';

const SERVER_FLAGS = {
  port: { type: 'int', min: 1, max: 65_535, help: 'gRPC port of the server (default 7233)' },
  'ui-port': { type: 'int', min: 1, max: 65_535, help: 'port of the Web UI (default 8233)' },
  db: { type: 'string', value: 'FILE', help: 'SQLite file holding the server\'s data (default .durable-agent/temporal.db)' },
  'codec-port': { type: 'int', min: 0, max: 65_535, help: 'with AGENT_ENCRYPTION_KEYS: port of the codec server the UI decrypts through (default 8888)' },
} satisfies Record<string, FlagSpec>;

const USAGE = 'server [--port N] [--ui-port N] [--db FILE] [--codec-port N]';

export const server = defineCommand({
  usage: USAGE,
  description: `The embedded Temporal dev server (the official Temporal CLI's, SQLite) with its Web UI, in the
foreground until Ctrl-C. Runs survive a restart on the same --db file. Prints the server's address and the UI's.
With AGENT_ENCRYPTION_KEYS set, a codec server in this process lets the UI show decrypted payloads.`,
  flags: SERVER_FLAGS,
  examples: ['server', 'server --port 7243 --ui-port 8243 --db /tmp/agents.db'],
  run: serverCommand,
});

async function serverCommand({ flags, positionals }: Parsed<typeof SERVER_FLAGS>): Promise<number> {
  expectPositionals(positionals, [], USAGE);
  const dbFile = flags.db ?? EMBEDDED_DB;
  const port = flags.port ?? 7233;
  const uiPort = flags['ui-port'] ?? 8233;
  if (port === uiPort) throw new UsageError(`--port and --ui-port are both ${port}: give them different ports`);
  // Asked before starting: the Temporal process reports a port it cannot bind only in its own log, and a check
  // that something answers would find the OTHER server there.
  if (!(await isPortFree(port))) {
    throw new UsageError(`port ${port} is in use (another Temporal server?): stop it, or choose another with --port N`);
  }
  if (!(await isPortFree(uiPort))) {
    throw new UsageError(`the Web UI port ${uiPort} is in use: stop what uses it, or choose another with --ui-port N`);
  }
  // With AGENT_ENCRYPTION_KEYS set, the Web UI decrypts through a codec server in this process (the keys stay here).
  const codec = keyRingFromEnv()
    ? await openCodecServer({ port: flags['codec-port'], allowedOrigins: [`http://localhost:${uiPort}`, `http://127.0.0.1:${uiPort}`] })
    : undefined;
  const { startDevServer } = await import('../../devserver/index.js'); // with Temporal's client, on use
  const dev = await startDevServer({
    port,
    uiPort,
    dbFile,
    log: logLine,
    extraArgs: codec ? ['--ui-codec-endpoint', codec.url] : [],
  }).catch(async (err: unknown) => {
    await codec?.close();
    throw err;
  });
  printText(`Temporal server: ${dev.address}\nWeb UI: ${dev.uiUrl}\n`);
  if (codec) printText(`Codec server: ${codec.url} (the Web UI decrypts payloads through it)\n`);
  logLine(`data in ${dbFile}; Ctrl-C stops the server`);
  // Until Ctrl-C, or until the Temporal process dies on its own (then say so: it is not a clean stop).
  const died = new Promise<string>((resolve) =>
    dev.process.once('exit', (code, signal) => resolve(signal ? `was killed by ${signal}` : `exited with code ${code}`)),
  );
  const death = await Promise.race([died, stopRequested().then(() => null)]);
  await codec?.close();
  if (death !== null) {
    logLine(`error: the Temporal server process ${death} (see its [temporal] lines above); runs in ${dbFile} are kept, start \`server\` again to go on`);
    return EXIT.failed;
  }
  await dev.stop();
  logLine('server stopped');
  return 0;
}
