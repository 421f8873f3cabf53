import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { DecodedTooLargeError, EncryptionCodec, MAX_DECODED_PAYLOAD_BYTES } from '../../src/codec/encryption-codec.js';
import { EncryptionKeyError, parseKeyRing } from '../../src/codec/keys.js';

const key = () => randomBytes(32).toString('base64');
const SECRET = 'the launch code is 0000 (very secret)';
const meta = (p: { metadata?: Record<string, Uint8Array | null> | null }, k: string) => Buffer.from(p.metadata![k]!).toString();

describe('EncryptionCodec', () => {
  it('round-trips a payload, and what it stores is neither the plain text nor plain text compressed', async () => {
    const codec = new EncryptionCodec(parseKeyRing(`k1:${key()}`));
    const plain = defaultPayloadConverter.toPayload({ task: SECRET.repeat(20) });
    const [encoded] = await codec.encode([plain]);
    expect(meta(encoded, 'encoding')).toBe('binary/encrypted');
    expect(meta(encoded, 'encryption-key-id')).toBe('k1');
    const stored = Buffer.from(encoded.data!);
    expect(stored.includes(Buffer.from('launch code'))).toBe(false);
    expect(stored.toString('base64')).not.toContain(Buffer.from(SECRET).toString('base64').slice(0, 20));
    expect(() => gunzipSync(stored)).toThrow();
    // Compressed before encryption: 20 repeats of the secret take far fewer bytes than the JSON.
    expect(stored.length).toBeLessThan(plain.data!.length / 4);
    const [decoded] = await codec.decode([encoded]);
    expect(defaultPayloadConverter.fromPayload(decoded)).toEqual({ task: SECRET.repeat(20) });
    expect(meta(decoded, 'encoding')).toBe('json/plain');
  });

  it('encrypts the same payload differently each time (a fresh IV)', async () => {
    const codec = new EncryptionCodec(parseKeyRing(`k1:${key()}`));
    const plain = defaultPayloadConverter.toPayload('same');
    const [a] = await codec.encode([plain]);
    const [b] = await codec.encode([plain]);
    expect(Buffer.from(a.data!).equals(Buffer.from(b.data!))).toBe(false);
  });

  it('after a rotation, decrypts payloads of the old key and encrypts with the new one', async () => {
    const [oldKey, newKey] = [key(), key()];
    const before = new EncryptionCodec(parseKeyRing(`2025:${oldKey}`));
    const after = new EncryptionCodec(parseKeyRing(`2026:${newKey},2025:${oldKey}`));
    const [old] = await before.encode([defaultPayloadConverter.toPayload('written before')]);
    expect(defaultPayloadConverter.fromPayload((await after.decode([old]))[0])).toBe('written before');
    const [fresh] = await after.encode([defaultPayloadConverter.toPayload('written after')]);
    expect(meta(fresh, 'encryption-key-id')).toBe('2026');
  });

  it('passes plain payloads (written before encryption was on) through on decode', async () => {
    const codec = new EncryptionCodec(parseKeyRing(`k1:${key()}`));
    const plain = defaultPayloadConverter.toPayload({ old: true });
    expect(await codec.decode([plain])).toEqual([plain]);
  });

  it('without keys, stores payloads plain and explains that encrypted ones need AGENT_ENCRYPTION_KEYS', async () => {
    const encrypted = (await new EncryptionCodec(parseKeyRing(`k1:${key()}`)).encode([defaultPayloadConverter.toPayload(1)]))[0];
    const none = new EncryptionCodec(null);
    const plain = defaultPayloadConverter.toPayload(2);
    expect(await none.encode([plain])).toEqual([plain]);
    await expect(none.decode([encrypted])).rejects.toThrow(
      new EncryptionKeyError(`this run's data is encrypted (key id "k1") and AGENT_ENCRYPTION_KEYS is not set here: set it to the keys the workers use`),
    );
  });

  it('refuses a payload that decompresses past MAX_DECODED_PAYLOAD_BYTES (a zip bomb) before taking the memory', async () => {
    const codec = new EncryptionCodec(parseKeyRing(`k1:${randomBytes(32).toString('base64')}`));
    const zeros = (n: number) => ({ metadata: { encoding: new Uint8Array(Buffer.from('binary/plain')) }, data: new Uint8Array(n) });
    const [bomb] = await codec.encode([zeros(MAX_DECODED_PAYLOAD_BYTES + 1024)]);
    expect(bomb.data!.length).toBeLessThan(100_000);
    await expect(codec.decode([bomb])).rejects.toThrow(new DecodedTooLargeError(`a payload (key id "k1") decompresses to more than ${MAX_DECODED_PAYLOAD_BYTES} bytes: it was not written by this codec`));
    const [fine] = await codec.encode([zeros(1024 * 1024)]);
    expect((await codec.decode([fine]))[0].data).toHaveLength(1024 * 1024);
  });

  it('tells, once per key id, of the payloads it cannot read (a worker says so loudly)', async () => {
    const heard: string[] = [];
    const keyless = new EncryptionCodec(null, { onUnreadable: (id) => heard.push(id) });
    const [k1, k2] = await Promise.all(['k1', 'k2'].map((id) => new EncryptionCodec(parseKeyRing(`${id}:${randomBytes(32).toString('base64')}`)).encode([defaultPayloadConverter.toPayload(id)])));
    for (const p of [k1, k1, k2, k1]) await expect(keyless.decode(p)).rejects.toThrow(EncryptionKeyError);
    expect(heard).toEqual(['k1', 'k2']);
  });

  it('names the variable when a key id is missing or a key is wrong, and detects a relabelled key id', async () => {
    const [encrypted] = await new EncryptionCodec(parseKeyRing(`k1:${key()}`)).encode([defaultPayloadConverter.toPayload(1)]);
    await expect(new EncryptionCodec(parseKeyRing(`k2:${key()}`)).decode([encrypted])).rejects.toThrow(
      /encrypted with key id "k1", which AGENT_ENCRYPTION_KEYS does not list \(it lists k2\)/,
    );
    await expect(new EncryptionCodec(parseKeyRing(`k1:${key()}`)).decode([encrypted])).rejects.toThrow(
      /does not decrypt with the key "k1" of AGENT_ENCRYPTION_KEYS: the key is wrong/,
    );
    const sameKey = key();
    const [labelled] = await new EncryptionCodec(parseKeyRing(`a:${sameKey}`)).encode([defaultPayloadConverter.toPayload(1)]);
    const relabelled = { ...labelled, metadata: { ...labelled.metadata, 'encryption-key-id': Buffer.from('b') } };
    await expect(new EncryptionCodec(parseKeyRing(`b:${sameKey}`)).decode([relabelled])).rejects.toThrow(EncryptionKeyError);
  });
});
