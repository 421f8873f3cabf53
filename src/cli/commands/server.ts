// `server`: the embedded Temporal dev server with its Web UI, in the foreground, until Ctrl-C.
import { startDevServer } from '../../devserver/index.js';
import { expectPositionals, parseArgs } from '../args.js';
import { logLine } from '../log.js';
import { EMBEDDED_DB } from '../temporal.js';

export async function serverCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, {
    port: { type: 'int', min: 1, max: 65_535 },
    'ui-port': { type: 'int', min: 1, max: 65_535 },
    db: { type: 'string' },
  });
  expectPositionals(positionals, [], 'server [--port N] [--ui-port N] [--db FILE]');
  const dbFile = flags.db ?? EMBEDDED_DB;
  const server = await startDevServer({
    port: flags.port ?? 7233,
    uiPort: flags['ui-port'] ?? 8233,
    dbFile,
    log: logLine,
  });
  process.stdout.write(`Temporal server: ${server.address}\nWeb UI: ${server.uiUrl}\n`);
  logLine(`data in ${dbFile}; Ctrl-C stops the server`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.stop();
  logLine('server stopped');
  return 0;
}
