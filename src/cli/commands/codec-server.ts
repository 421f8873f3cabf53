// `codec-server`: decrypts and encrypts payloads for the Temporal Web UI (and anything speaking Temporal's
// codec-server protocol) with the keys of AGENT_ENCRYPTION_KEYS, until Ctrl-C.
import { agentDataConverter } from '../../codec/data-converter.js';
import { DEFAULT_CODEC_PORT, DEFAULT_UI_ORIGINS, startCodecServer, type CodecServer } from '../../codec/codec-server.js';
import { ENCRYPTION_KEYS_VARIABLE, keyRingFromEnv } from '../../codec/keys.js';
import { expectPositionals, parseArgs, UsageError } from '../args.js';
import { logLine } from '../log.js';

const USAGE = 'codec-server [--port N] [--host ADDRESS] [--allow-origin URL,...]';

export async function codecServerCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, {
    port: { type: 'int', min: 0, max: 65_535 },
    host: { type: 'string' },
    'allow-origin': { type: 'list' },
  });
  expectPositionals(positionals, [], USAGE);
  const server = await openCodecServer({ port: flags.port, host: flags.host, allowedOrigins: flags['allow-origin'] });
  process.stdout.write(`Codec server: ${server.url}\n`);
  logLine(`Web UI origins allowed: ${server.allowedOrigins.join(', ')}; Ctrl-C stops it`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  logLine('codec server stopped');
  return 0;
}

/** A codec server with the keys of AGENT_ENCRYPTION_KEYS (which it requires); a busy port is a usage error. */
export async function openCodecServer(options: { port?: number; host?: string; allowedOrigins?: string[] }): Promise<CodecServer> {
  if (!keyRingFromEnv()) {
    throw new UsageError(`${ENCRYPTION_KEYS_VARIABLE} is not set: the codec server needs the keys the workers encrypt with`);
  }
  const codec = agentDataConverter().payloadCodecs![0];
  const port = options.port ?? DEFAULT_CODEC_PORT;
  try {
    return await startCodecServer({ codec, port, host: options.host, allowedOrigins: options.allowedOrigins ?? DEFAULT_UI_ORIGINS });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new UsageError(`the codec server cannot listen on port ${port}: it is in use (choose another with --port)`);
    }
    throw err;
  }
}
