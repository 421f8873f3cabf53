// `codec-server`: decrypts and encrypts payloads for the Temporal Web UI (and anything speaking Temporal's
// codec-server protocol) with the keys of AGENT_ENCRYPTION_KEYS, until Ctrl-C.
import type { CodecServer } from '../../codec/codec-server.js';
import { ENCRYPTION_KEYS_VARIABLE, keyRingFromEnv } from '../../codec/keys.js';
import { expectPositionals, UsageError, type FlagSpec, type Parsed } from '../../core/args.js';
import { defineCommand } from '../command.js';
import { logLine } from '../log.js';
import { stopRequested } from '../stop-waiting.js';
import { printText } from '../output.js';

const USAGE = 'codec-server [--port N] [--host ADDRESS] [--allow-origin URL,...]';

const CODEC_SERVER_FLAGS = {
  port: { type: 'int', min: 0, max: 65_535, help: 'port to listen on (default 8888)' },
  host: { type: 'string', value: 'ADDRESS', help: 'address to listen on (default 127.0.0.1)' },
  'allow-origin': { type: 'list', value: 'URL,...', help: 'origins of Web UIs allowed to call it (CORS)' },
} satisfies Record<string, FlagSpec>;

export const codecServer = defineCommand({
  usage: USAGE,
  description: `Decrypt and encrypt payloads for the Temporal Web UI (Temporal's codec-server protocol: /encode and
/decode) with the keys of AGENT_ENCRYPTION_KEYS, until Ctrl-C. Point the Web UI at it (its "Configure data
encoder" setting, or the dev server's --ui-codec-endpoint).`,
  flags: CODEC_SERVER_FLAGS,
  examples: ['codec-server', 'codec-server --port 8899 --allow-origin http://localhost:8080'],
  run: codecServerCommand,
});

async function codecServerCommand({ flags, positionals }: Parsed<typeof CODEC_SERVER_FLAGS>): Promise<number> {
  expectPositionals(positionals, [], USAGE);
  const server = await openCodecServer({ port: flags.port, host: flags.host, allowedOrigins: flags['allow-origin'] });
  printText(`Codec server: ${server.url}\n`);
  logLine(`Web UI origins allowed: ${server.allowedOrigins.join(', ')}; Ctrl-C stops it`);
  await stopRequested();
  await server.close();
  logLine('codec server stopped');
  return 0;
}

/** A codec server with the keys of AGENT_ENCRYPTION_KEYS (which it requires); a busy port is a usage error. */
export async function openCodecServer(options: { port?: number; host?: string; allowedOrigins?: string[] }): Promise<CodecServer> {
  if (!keyRingFromEnv()) {
    throw new UsageError(`${ENCRYPTION_KEYS_VARIABLE} is not set: the codec server needs the keys the workers encrypt with`);
  }
  // Temporal's protobufs load on use, so `--help` and usage errors stay fast.
  const { agentDataConverter } = await import('../../codec/data-converter.js');
  const { DEFAULT_CODEC_PORT, DEFAULT_UI_ORIGINS, startCodecServer } = await import('../../codec/codec-server.js');
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
