// A codec server for the Temporal Web UI (Temporal's protocol): `POST /encode` and `POST /decode` take and give
// `{"payloads": [{"metadata": {"<key>": "<base64>"}, "data": "<base64>"}]}`. The UI calls it from the browser, so
// it answers CORS preflights, but only for the origins it is told (the Web UI's): a decrypting endpoint open to
// every origin would let any web page the operator visits read the runs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { DecodedTooLargeError } from './encryption-codec.js';
import { EncryptionKeyError } from './keys.js';

export const DEFAULT_CODEC_PORT = 8888;
/** The Web UI of `server` (and of `temporal server start-dev`) by default. */
export const DEFAULT_UI_ORIGINS = ['http://localhost:8233', 'http://127.0.0.1:8233'];
/** Request headers the UI sends: the namespace, the JSON body, and its access token when configured to pass it. */
const ALLOWED_HEADERS = 'x-namespace, content-type, authorization';
/** What one request may send, decompress to, and how many are decoded at once: the UI sends a history page's
 * payloads (a page is under gRPC's 4 MB), so these leave room, and bound the memory a hostile request can take
 * (a "zip bomb": 45 MB of zeros is 61 KB of ciphertext) to about maxConcurrent × maxOutputBytes. */
export const CODEC_SERVER_LIMITS = {
  maxBodyBytes: 16 * 1024 * 1024,
  maxOutputBytes: 32 * 1024 * 1024,
  maxConcurrent: 4,
  /** Requests that wait for one of the maxConcurrent places; past them, 503. The Web UI asks for each event's
   * payloads at once (dozens of requests for one page) and shows a refused one's payloads still encoded, with no
   * retry: on a busy machine, refusing past maxConcurrent left some of a page undecoded. */
  maxWaiting: 256,
};

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** Default 8888; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1: the codec server decrypts, so it listens on this machine only unless told otherwise. */
  host?: string;
  /** Browser origins allowed to call it (the Web UI's, e.g. http://localhost:8233). Requests without an Origin
   * header (curl, scripts on this machine) are always answered. */
  allowedOrigins?: string[];
  /** Default CODEC_SERVER_LIMITS. */
  limits?: Partial<typeof CODEC_SERVER_LIMITS>;
}

export interface CodecServer {
  /** http://host:port, to give the UI (`--ui-codec-endpoint`). */
  url: string;
  port: number;
  allowedOrigins: string[];
  close(): Promise<void>;
}

interface WirePayload {
  metadata?: Record<string, string>;
  data?: string;
}

class BadRequest extends Error {}
class TooLarge extends Error {}

type Limits = typeof CODEC_SERVER_LIMITS;
/** The requests being served, and those waiting for a place (each given its place by one that ends). */
interface InFlight {
  count: number;
  waiting: Array<() => void>;
}
type BoundedCodec = PayloadCodec & { decodeWithin?: (payloads: Payload[], maxBytes: number) => Promise<Payload[]> };

export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const host = options.host ?? '127.0.0.1';
  const allowedOrigins = (options.allowedOrigins ?? DEFAULT_UI_ORIGINS).map(normaliseOrigin);
  const limits: Limits = { ...CODEC_SERVER_LIMITS, ...options.limits };
  const inFlight: InFlight = { count: 0, waiting: [] };
  const server = http.createServer((req, res) => {
    handle(req, res, options.codec, allowedOrigins, limits, inFlight).catch((err: unknown) => {
      if (!res.headersSent) reply(res, 500, { error: err instanceof Error ? err.message : String(err) });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_CODEC_PORT, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    allowedOrigins,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  codec: BoundedCodec,
  allowed: string[],
  limits: Limits,
  inFlight: InFlight,
): Promise<void> {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (!allowed.includes(normaliseOrigin(origin))) {
      reply(res, 403, { error: `origin ${origin} is not allowed (allowed: ${allowed.join(', ')}; see --allow-origin)` });
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Vary', 'Origin');
  }
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    // Chrome asks before a page on a public address calls a private one (a UI served from elsewhere).
    if (req.headers['access-control-request-private-network'] === 'true') {
      res.setHeader('Access-Control-Allow-Private-Network', 'true');
    }
    res.writeHead(204).end();
    return;
  }
  const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
  const operation = path === '/encode' ? 'encode' : path === '/decode' ? 'decode' : null;
  if (!operation) {
    reply(res, 404, { error: 'not found: POST /encode or /decode' });
    return;
  }
  if (req.method !== 'POST') {
    res.setHeader('Allow', 'POST, OPTIONS');
    reply(res, 405, { error: `${operation} takes POST` });
    return;
  }
  if (inFlight.count >= limits.maxConcurrent) {
    if (inFlight.waiting.length >= limits.maxWaiting) {
      res.setHeader('Retry-After', '1');
      const most = `${limits.maxConcurrent} requests at once and ${limits.maxWaiting} waiting at most`;
      refuse(req, res, 503, `the codec server is busy (${most}): try again in a moment`, limits);
      return;
    }
    // Its body is read once its turn comes, so waiting requests hold no more than their sockets. The request that
    // ends hands its place over (count stays), so a newcomer cannot take it in between.
    await new Promise<void>((resolve) => inFlight.waiting.push(resolve));
  } else {
    inFlight.count++;
  }
  try {
    const payloads = parsePayloads(await readBody(req, limits.maxBodyBytes));
    const result =
      operation === 'encode'
        ? await codec.encode(payloads)
        : codec.decodeWithin
          ? await codec.decodeWithin(payloads, limits.maxOutputBytes)
          : await codec.decode(payloads);
    reply(res, 200, { payloads: result.map(toWire) });
  } catch (err) {
    if (err instanceof TooLarge || err instanceof DecodedTooLargeError) {
      refuse(req, res, 413, err.message, limits);
      return;
    }
    if (err instanceof BadRequest || err instanceof EncryptionKeyError) {
      reply(res, 400, { error: err.message });
      return;
    }
    throw err;
  } finally {
    const next = inFlight.waiting.shift();
    if (next) next();
    else inFlight.count--;
  }
}

/** Reads the body, up to `max` bytes: past it, TooLarge (what was read is dropped; the rest is left to
 * `refuse`, which answers before the client has sent it all). */
function readBody(req: http.IncomingMessage, max: number): Promise<string> {
  const tooLarge = () => new TooLarge(`the request body is over ${max} bytes: send fewer payloads at once`);
  if (Number(req.headers['content-length'] ?? 0) > max) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.off('data', onData);
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Answers with `status` and a message, and closes the connection once the client has been told: the rest of
 * its body is read and dropped (a client still sending would otherwise see a reset instead of the answer), up to
 * a few times the body limit, past which the connection is cut. */
function refuse(req: http.IncomingMessage, res: http.ServerResponse, status: number, message: string, limits: Limits): void {
  let drained = 0;
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > 4 * limits.maxBodyBytes) req.destroy();
  });
  req.resume();
  res.setHeader('Connection', 'close');
  reply(res, status, { error: message });
}

function parsePayloads(body: string): Payload[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new BadRequest('the body is not JSON: expected {"payloads": [...]}');
  }
  const payloads = (parsed as { payloads?: unknown } | null)?.payloads;
  if (!Array.isArray(payloads)) throw new BadRequest('expected {"payloads": [...]}');
  return payloads.map((p: WirePayload, i) => {
    if (typeof p !== 'object' || p === null) throw new BadRequest(`payloads[${i}] is not an object`);
    const metadata: Record<string, Uint8Array> = {};
    for (const [key, value] of Object.entries(p.metadata ?? {})) {
      if (typeof value !== 'string') throw new BadRequest(`payloads[${i}].metadata.${key} is not a base64 string`);
      metadata[key] = new Uint8Array(Buffer.from(value, 'base64'));
    }
    if (p.data !== undefined && typeof p.data !== 'string') throw new BadRequest(`payloads[${i}].data is not a base64 string`);
    return { metadata, data: new Uint8Array(Buffer.from(p.data ?? '', 'base64')) };
  });
}

function toWire(p: Payload): WirePayload {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(p.metadata ?? {})) {
    if (value) metadata[key] = Buffer.from(value).toString('base64');
  }
  return { metadata, data: Buffer.from(p.data ?? new Uint8Array()).toString('base64') };
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/** Origins compare without a trailing slash and case-insensitively (scheme and host are). */
function normaliseOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}
