// `server`: the embedded Temporal dev server with its Web UI, in the foreground, until Ctrl-C.
import { keyRingFromEnv } from '../../codec/keys.js';
import { startDevServer } from '../../devserver/index.js';
import { expectPositionals, parseArgs } from '../args.js';
import { logLine } from '../log.js';
import { EMBEDDED_DB } from '../temporal.js';
import { openCodecServer } from './codec-server.js';

export async function serverCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, {
    port: { type: 'int', min: 1, max: 65_535 },
    'ui-port': { type: 'int', min: 1, max: 65_535 },
    db: { type: 'string' },
    'codec-port': { type: 'int', min: 0, max: 65_535 },
  });
  expectPositionals(positionals, [], 'server [--port N] [--ui-port N] [--db FILE] [--codec-port N]');
  const dbFile = flags.db ?? EMBEDDED_DB;
  const uiPort = flags['ui-port'] ?? 8233;
  // With AGENT_ENCRYPTION_KEYS set, the Web UI decrypts through a codec server in this process (the keys stay here).
  const codec = keyRingFromEnv()
    ? await openCodecServer({ port: flags['codec-port'], allowedOrigins: [`http://localhost:${uiPort}`, `http://127.0.0.1:${uiPort}`] })
    : undefined;
  const server = await startDevServer({
    port: flags.port ?? 7233,
    uiPort,
    dbFile,
    log: logLine,
    extraArgs: codec ? ['--ui-codec-endpoint', codec.url] : [],
  }).catch(async (err: unknown) => {
    await codec?.close();
    throw err;
  });
  process.stdout.write(`Temporal server: ${server.address}\nWeb UI: ${server.uiUrl}\n`);
  if (codec) process.stdout.write(`Codec server: ${codec.url} (the Web UI decrypts payloads through it)\n`);
  logLine(`data in ${dbFile}; Ctrl-C stops the server`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.stop();
  await codec?.close();
  logLine('server stopped');
  return 0;
}
