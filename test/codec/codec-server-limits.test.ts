// The codec server bounds what one request may cost: the body it sends (413 with a message, not a reset), what
// its payloads decompress to (a "zip bomb" of zeros is refused before the memory is taken), and how many
// requests are served at once (more wait their turn; 503 past a bound on those waiting).
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODEC_SERVER_LIMITS, startCodecServer, type CodecServer } from '../../src/codec/codec-server.js';
import { EncryptionCodec } from '../../src/codec/encryption-codec.js';
import { parseKeyRing } from '../../src/codec/keys.js';

const codec = new EncryptionCodec(parseKeyRing(`k1:${randomBytes(32).toString('base64')}`));
const servers: CodecServer[] = [];
const open = async (options: Partial<Parameters<typeof startCodecServer>[0]> = {}) => {
  const server = await startCodecServer({ codec, port: 0, ...options });
  servers.push(server);
  return server;
};
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const b64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('base64');
const wire = (p: Payload) => ({ metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])), data: b64(p.data) });
const post = (server: CodecServer, path: string, body: string) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;
/** A payload of `bytes` zeros, encrypted: gzip makes it about a thousandth of that. */
const zeros = async (bytes: number) => (await codec.encode([{ metadata: { encoding: new Uint8Array(Buffer.from('binary/plain')) }, data: new Uint8Array(bytes) }]))[0];
const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

describe('codec server limits', { timeout: 60_000 }, () => {
  let bomb: string;
  beforeAll(async () => {
    const one = wire(await zeros(45 * 1024 * 1024));
    bomb = JSON.stringify({ payloads: Array.from({ length: 100 }, () => one) });
  });

  it('refuses a decompression bomb (100 copies of 45 MB of zeros in one body) with a 413, its memory bounded', async () => {
    const server = await open();
    expect(bomb.length).toBeLessThan(CODEC_SERVER_LIMITS.maxBodyBytes); // small on the wire: about 6 MB
    const before = peakRssMb();
    const res = await post(server, '/decode', bomb);
    expect(res.status).toBe(413);
    expect(await errorOf(res)).toMatch(/decompress to more than 33554432 bytes: send fewer at once/);
    // 4.5 GB unbounded; bounded, one 32 MB output buffer at most, plus parsing the 6 MB body.
    expect(peakRssMb() - before).toBeLessThan(250);
  });

  it('decodes a request within the bound, and refuses one payload more once the total is past it', async () => {
    const server = await open();
    const eight = wire(await zeros(8 * 1024 * 1024));
    const three = await post(server, '/decode', JSON.stringify({ payloads: [eight, eight, eight] }));
    expect(three.status).toBe(200);
    const decoded = ((await three.json()) as { payloads: Array<{ data: string }> }).payloads;
    expect(decoded.map((p) => Buffer.from(p.data, 'base64').length)).toEqual([8 << 20, 8 << 20, 8 << 20]);
    const five = await post(server, '/decode', JSON.stringify({ payloads: [eight, eight, eight, eight, eight] }));
    expect(five.status).toBe(413);
  });

  it('answers a body over the limit with a 413 and a message, before the client has sent it all', async () => {
    const server = await open({ limits: { maxBodyBytes: 1024 * 1024 } });
    const big = JSON.stringify({ payloads: [{ metadata: {}, data: Buffer.alloc(3 * 1024 * 1024).toString('base64') }] });
    const res = await post(server, '/decode', big);
    expect(res.status).toBe(413);
    expect(await errorOf(res)).toBe('the request body is over 1048576 bytes: send fewer payloads at once');
    // Without a Content-Length (a chunked upload), the same answer once the limit is crossed.
    const chunked = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode(big.slice(i * 1_000_000, (i + 1) * 1_000_000)));
        controller.close();
      },
    });
    const streamed = await fetch(`${server.url}/decode`, { method: 'POST', body: chunked, duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await errorOf(streamed)).toMatch(/request body is over 1048576 bytes/);
    // The server is still there for the next request.
    expect((await post(server, '/decode', JSON.stringify({ payloads: [] }))).status).toBe(200);
  });

  it('serves at most maxConcurrent requests at once; more wait their turn, and past maxWaiting one is a 503 with a message', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered = 0;
    let atOnce = 0;
    let mostAtOnce = 0;
    const slow: PayloadCodec = {
      encode: async (p) => p,
      decode: async (p) => {
        entered++;
        mostAtOnce = Math.max(mostAtOnce, ++atOnce);
        await gate;
        atOnce--;
        return p;
      },
    };
    const server = await open({ codec: slow, limits: { maxConcurrent: 2, maxWaiting: 2 } });
    const body = JSON.stringify({ payloads: [wire(defaultPayloadConverter.toPayload('x'))] });
    const served = [post(server, '/decode', body), post(server, '/decode', body)];
    await expect.poll(() => entered).toBe(2);
    // Three more: two wait (maxWaiting), and whichever arrives last is refused at once, while the others still wait.
    const more = [post(server, '/decode', body), post(server, '/decode', body), post(server, '/decode', body)];
    const refused = await Promise.race(more);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await errorOf(refused)).toMatch(/the codec server is busy \(2 requests at once and 2 waiting at most\)/);
    expect(entered).toBe(2);
    release();
    expect((await Promise.all(served)).map((r) => r.status)).toEqual([200, 200]);
    expect((await Promise.all(more)).map((r) => r.status).sort()).toEqual([200, 200, 503]);
    expect(entered).toBe(4);
    expect(mostAtOnce).toBe(2);
    expect((await post(server, '/decode', body)).status).toBe(200);
  });
});
