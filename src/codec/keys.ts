// The encryption keys, from AGENT_ENCRYPTION_KEYS: comma-separated `<keyId>:<base64 of 32 bytes>` entries. The
// first encrypts; all decrypt, so payloads written before a rotation stay readable while their key is listed.
// Error messages name the variable and the key id, never the key material.

export const ENCRYPTION_KEYS_VARIABLE = 'AGENT_ENCRYPTION_KEYS';
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A key problem: malformed keys, a key id missing from the list, a key that does not decrypt. The CLI answers
 * it with one line and exit 2 (it is configuration, not a crash). */
export class EncryptionKeyError extends Error {
  override name = 'EncryptionKeyError';
  /** The key id of the payload that could not be read, when the error is about one (not enumerable: the
   * error compares, and prints, by its message). */
  declare readonly keyId?: string;
  constructor(message: string, keyId?: string) {
    super(message);
    Object.defineProperty(this, 'keyId', { value: keyId, enumerable: false });
  }
}

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

export interface KeyRing {
  /** The key new payloads are encrypted with (the first entry). */
  current: EncryptionKey;
  /** Every listed key, by id. */
  byId: ReadonlyMap<string, EncryptionKey>;
}

/** The keys configured in `env`, or null when AGENT_ENCRYPTION_KEYS is unset (payloads stay plain). An empty or
 * malformed value is an error rather than "no encryption": a secret that failed to reach a deployment must not
 * silently turn encryption off. */
export function keyRingFromEnv(env: NodeJS.ProcessEnv = process.env): KeyRing | null {
  const raw = env[ENCRYPTION_KEYS_VARIABLE];
  return raw === undefined ? null : parseKeyRing(raw);
}

export function parseKeyRing(value: string): KeyRing {
  const entries = value.split(',').map((e) => e.trim());
  if (entries.every((e) => e === '')) {
    throw new EncryptionKeyError(
      `${ENCRYPTION_KEYS_VARIABLE} is set but empty: give <keyId>:<base64 of 32 bytes> entries (the first encrypts), ` +
        'or unset it to store payloads unencrypted',
    );
  }
  const keys: EncryptionKey[] = [];
  entries.forEach((entry, index) => {
    const where = `${ENCRYPTION_KEYS_VARIABLE} entry ${index + 1}`;
    const colon = entry.indexOf(':');
    if (colon < 0) {
      throw new EncryptionKeyError(`${where} is not <keyId>:<base64 of 32 bytes> (no ":" in it)`);
    }
    const id = entry.slice(0, colon).trim();
    const material = entry.slice(colon + 1).trim();
    if (!KEY_ID.test(id)) {
      throw new EncryptionKeyError(`${where}: the key id must be 1 to 64 characters of A-Z a-z 0-9 . _ -`);
    }
    if (!BASE64.test(material)) {
      throw new EncryptionKeyError(`${where} (key id "${id}"): the key is not base64 (make one with: openssl rand -base64 32)`);
    }
    const key = Buffer.from(material, 'base64');
    if (key.length !== KEY_BYTES) {
      throw new EncryptionKeyError(
        `${where} (key id "${id}"): the key is ${key.length} bytes, AES-256 needs ${KEY_BYTES} (make one with: openssl rand -base64 32)`,
      );
    }
    if (keys.some((k) => k.id === id)) throw new EncryptionKeyError(`${where}: key id "${id}" is listed twice`);
    keys.push({ id, key });
  });
  return { current: keys[0], byId: new Map(keys.map((k) => [k.id, k])) };
}
