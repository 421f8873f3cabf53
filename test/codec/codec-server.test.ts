// The codec server speaks Temporal's codec-server protocol over plain HTTP, and answers browsers only from the
// Web UI's origin.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCodecServer, type CodecServer } from '../../src/codec/codec-server.js';
import { agentDataConverter } from '../../src/codec/data-converter.js';
import { EncryptionCodec } from '../../src/codec/encryption-codec.js';
import { parseKeyRing } from '../../src/codec/keys.js';

const UI = 'http://127.0.0.1:8233';
const keys = `k1:${randomBytes(32).toString('base64')}`;
const workerCodec = agentDataConverter({ AGENT_ENCRYPTION_KEYS: keys }).payloadCodecs![0];
let server: CodecServer;
beforeAll(async () => {
  server = await startCodecServer({ codec: new EncryptionCodec(parseKeyRing(keys)), port: 0, allowedOrigins: [UI] });
});
afterAll(async () => {
  await server?.close();
});

const b64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? new Uint8Array()).toString('base64');
/** A payload as the protocol carries it: metadata values and data in base64. */
const wire = (p: Payload) => ({ metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])), data: b64(p.data) });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('codec server', () => {
  it('decodes what the worker encrypted, and encodes what it can decode again (base64 metadata and data)', async () => {
    const [encrypted] = await workerCodec.encode([defaultPayloadConverter.toPayload({ task: 'a secret task' })]);
    const decoded = await post('/decode', { payloads: [wire(encrypted)] }, { origin: UI });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe(UI);
    const { payloads } = (await decoded.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> };
    expect(payloads).toHaveLength(1);
    expect(Buffer.from(payloads[0].metadata.encoding, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(payloads[0].data, 'base64').toString())).toEqual({ task: 'a secret task' });

    const encoded = await post('/encode', { payloads });
    const back = ((await encoded.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> }).payloads[0];
    expect(Buffer.from(back.metadata.encoding, 'base64').toString()).toBe('binary/encrypted');
    expect(Buffer.from(back.data, 'base64').toString()).not.toContain('secret');
    const [roundTrip] = await workerCodec.decode([
      {
        metadata: Object.fromEntries(Object.entries(back.metadata).map(([k, v]) => [k, new Uint8Array(Buffer.from(v, 'base64'))])),
        data: new Uint8Array(Buffer.from(back.data, 'base64')),
      },
    ]);
    expect(defaultPayloadConverter.fromPayload(roundTrip)).toEqual({ task: 'a secret task' });
  });

  it('answers the preflight of the Web UI (x-namespace, content-type, authorization) and no other origin', async () => {
    const preflight = (origin: string) =>
      fetch(`${server.url}/decode`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-namespace' },
      });
    const ok = await preflight(UI);
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe(UI);
    expect(ok.headers.get('access-control-allow-methods')).toContain('POST');
    expect(ok.headers.get('access-control-allow-headers')).toBe('x-namespace, content-type, authorization');
    const evil = await preflight('https://evil.example');
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    // A page on another origin cannot have it decrypt, even with a "simple" request that skips the preflight.
    const sneaky = await post('/decode', { payloads: [] }, { origin: 'https://evil.example', 'content-type': 'text/plain' });
    expect(sneaky.status).toBe(403);
    expect(((await sneaky.json()) as { error: string }).error).toMatch(/origin https:\/\/evil\.example is not allowed/);
  });

  it('says what is wrong: not JSON, no payloads, an unknown key id, a wrong path or method', async () => {
    const notJson = await post('/decode', '{nope');
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: string }).error).toMatch(/not JSON/);
    expect((await post('/decode', { items: [] })).status).toBe(400);
    const [foreign] = await new EncryptionCodec(parseKeyRing(`other:${randomBytes(32).toString('base64')}`)).encode([
      defaultPayloadConverter.toPayload(1),
    ]);
    const unknownKey = await post('/decode', { payloads: [wire(foreign)] });
    expect(unknownKey.status).toBe(400);
    expect(((await unknownKey.json()) as { error: string }).error).toMatch(/key id "other", which AGENT_ENCRYPTION_KEYS does not list/);
    expect((await fetch(`${server.url}/nowhere`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${server.url}/decode`)).status).toBe(405);
  });
});
