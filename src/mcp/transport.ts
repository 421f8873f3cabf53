// How a session reaches its server, and how it lets go of it: a stdio server is spawned (its stderr lines marked with
// its name on the worker's stderr, its messages read up to maxMessageBytes), an HTTP one is connected to; closing
// ends the HTTP session (bounded) and stops a stdio server's process (stdin closed, then SIGTERM, then SIGKILL).
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ResolvedMcpServer } from './config.js';
import { coalescedRefreshFetch } from './oauth.js';

export function openTransport(
  server: ResolvedMcpServer,
  log: (message: string) => void,
  authProvider?: OAuthClientProvider,
): StdioClientTransport | StreamableHTTPClientTransport {
  if (server.kind === 'http') {
    return new StreamableHTTPClientTransport(server.url, {
      requestInit: { headers: server.config.headers ?? {} },
      ...(authProvider ? { authProvider, fetch: coalescedRefreshFetch() } : {}),
    });
  }
  const { command, args, env, cwd } = server.config;
  const maxBufferSize = server.policy.maxMessageBytes;
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: 'pipe', maxBufferSize });
  // The server's own log lines, marked with its name, on the worker's stderr (never on stdout: the CLI's).
  transport.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) log(`[mcp ${server.name}] ${line}`);
  });
  return transport;
}

export async function closeClient(client: Client): Promise<void> {
  const transport = client.transport;
  // Tells an HTTP server the session is over (bounded: the server may be the thing that is down).
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    await Promise.race([transport.terminateSession().catch(() => undefined), new Promise((r) => setTimeout(r, 2000).unref())]);
  }
  await client.close().catch(() => undefined);
}

