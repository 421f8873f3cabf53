import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EncryptionKeyError, keyRingFromEnv, parseKeyRing } from '../../src/codec/keys.js';

const k = () => randomBytes(32).toString('base64');

describe('AGENT_ENCRYPTION_KEYS', () => {
  it('is off when unset, and the first entry encrypts while every entry decrypts', () => {
    expect(keyRingFromEnv({})).toBeNull();
    const [a, b] = [k(), k()];
    const ring = parseKeyRing(` new:${a} , old:${b}`);
    expect(ring.current.id).toBe('new');
    expect(ring.current.key.toString('base64')).toBe(a);
    expect([...ring.byId.keys()]).toEqual(['new', 'old']);
    expect(ring.byId.get('old')!.key.toString('base64')).toBe(b);
  });

  it.each([
    ['', /AGENT_ENCRYPTION_KEYS is set but empty/],
    ['  ,  ', /AGENT_ENCRYPTION_KEYS is set but empty/],
    ['nocolon', /AGENT_ENCRYPTION_KEYS entry 1 is not <keyId>:<base64 of 32 bytes>/],
    [`:${k()}`, /AGENT_ENCRYPTION_KEYS entry 1: the key id must be/],
    ['k1:not base64!!', /AGENT_ENCRYPTION_KEYS entry 1 \(key id "k1"\): the key is not base64/],
    [`k1:${randomBytes(16).toString('base64')}`, /entry 1 \(key id "k1"\): the key is 16 bytes, AES-256 needs 32/],
    [`k1:${k()},k1:${k()}`, /AGENT_ENCRYPTION_KEYS entry 2: key id "k1" is listed twice/],
  ])('rejects %j with a one-line error naming the variable', (value, message) => {
    let error: unknown;
    try {
      keyRingFromEnv({ AGENT_ENCRYPTION_KEYS: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(EncryptionKeyError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('never repeats the key material in an error', () => {
    const short = randomBytes(31).toString('base64');
    expect(() => parseKeyRing(`k1:${short}`)).toThrow(EncryptionKeyError);
    try {
      parseKeyRing(`k1:${short}`);
    } catch (err) {
      expect((err as Error).message).not.toContain(short);
    }
  });
});
