// The payload codec: every payload (workflow input, activity inputs and results, queries, updates, user
// metadata, failure attributes) is serialised, gzip-compressed, then encrypted with AES-256-GCM. The key id
// travels in the payload's metadata, so any listed key decrypts what it wrote. Compression comes first because
// ciphertext does not compress.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Payload, PayloadCodec } from '@temporalio/common';
// @temporalio/proto is CommonJS: Node's ESM loader gives it as a default export only.
import proto from '@temporalio/proto';
import { ENCRYPTION_KEYS_VARIABLE, EncryptionKeyError, type KeyRing } from './keys.js';

export const ENCODING_ENCRYPTED = 'binary/encrypted';
export const METADATA_KEY_ID = 'encryption-key-id';
export const METADATA_CIPHER = 'encryption-cipher';
export const METADATA_COMPRESSION = 'compression';
const { Payload: PayloadMessage } = proto.temporal.api.common.v1;
const CIPHER = 'AES256GCM';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What one payload may decompress to. Temporal refuses payloads over 2 MB; what this codec wrote is that at
 * most after compression, so this only stops a crafted payload (a "zip bomb") from taking the memory. */
export const MAX_DECODED_PAYLOAD_BYTES = 64 * 1024 * 1024;

/** A payload, or the payloads of one codec-server request, that would decompress past the bound. */
export class DecodedTooLargeError extends Error {
  override name = 'DecodedTooLargeError';
}

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);
const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const metadataBytes = (p: Payload) => Object.values(p.metadata ?? {}).reduce((n, v) => n + (v?.length ?? 0), 0);
const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : undefined);

export class EncryptionCodec implements PayloadCodec {
  /** True when this codec encrypts what it encodes (a key ring is configured). Without keys it passes payloads
   * through, and only explains, on decode, that encrypted data needs AGENT_ENCRYPTION_KEYS. */
  readonly encrypts: boolean;
  /** The ids of the keys it holds, the one it encrypts with first (none without keys). */
  readonly keyIds: readonly string[];
  readonly #onUnreadable: ((keyId: string, message: string) => void) | undefined;
  readonly #reported = new Set<string>();

  /** `onUnreadable` hears of the first payload of each key id this codec cannot decrypt (no keys, not that key
   * id, a wrong key): a worker says so once, loudly, instead of only failing tasks. */
  constructor(
    private readonly keys: KeyRing | null,
    options: { onUnreadable?: (keyId: string, message: string) => void } = {},
  ) {
    this.encrypts = keys !== null;
    this.keyIds = keys ? [keys.current.id, ...[...keys.byId.keys()].filter((id) => id !== keys.current.id)] : [];
    this.#onUnreadable = options.onUnreadable;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const keys = this.keys;
    if (!keys) return payloads;
    return Promise.all(
      payloads.map(async (payload) => {
        const plain = PayloadMessage.encode(payload).finish();
        const compressed = await gzipAsync(plain);
        const { id, key } = keys.current;
        const iv = randomBytes(IV_BYTES);
        const cipher = createCipheriv('aes-256-gcm', key, iv);
        // The key id is authenticated too: a payload relabelled with another id fails to decrypt.
        cipher.setAAD(Buffer.from(id, 'utf8'));
        const body = Buffer.concat([cipher.update(compressed), cipher.final()]);
        return {
          metadata: {
            encoding: utf8(ENCODING_ENCRYPTED),
            [METADATA_KEY_ID]: utf8(id),
            [METADATA_CIPHER]: utf8(CIPHER),
            [METADATA_COMPRESSION]: utf8('gzip'),
          },
          data: new Uint8Array(Buffer.concat([iv, body, cipher.getAuthTag()])),
        };
      }),
    );
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return this.#reporting(() => Promise.all(payloads.map((payload) => this.decodeOne(payload, MAX_DECODED_PAYLOAD_BYTES))));
  }

  /** Decodes one payload after the other within `maxBytes` of decompressed output in all (the codec server's
   * bound on what one request may make it produce): DecodedTooLargeError past it, before the memory is used. */
  async decodeWithin(payloads: Payload[], maxBytes: number): Promise<Payload[]> {
    return this.#reporting(async () => {
      const out: Payload[] = [];
      let left = maxBytes;
      for (const payload of payloads) {
        const decoded = await this.decodeOne(payload, Math.min(left, MAX_DECODED_PAYLOAD_BYTES), maxBytes);
        left -= (decoded.data?.length ?? 0) + metadataBytes(decoded);
        out.push(decoded);
      }
      return out;
    });
  }

  async #reporting(decode: () => Promise<Payload[]>): Promise<Payload[]> {
    try {
      return await decode();
    } catch (err) {
      const id = err instanceof EncryptionKeyError ? (err.keyId ?? '') : undefined;
      if (id !== undefined && this.#onUnreadable && !this.#reported.has(id)) {
        this.#reported.add(id);
        this.#onUnreadable(id, (err as Error).message);
      }
      throw err;
    }
  }

  private async decodeOne(payload: Payload, maxBytes: number, requestMax?: number): Promise<Payload> {
    // Payloads written before encryption was turned on stay plain, and stay readable.
    if (text(payload.metadata?.encoding) !== ENCODING_ENCRYPTED) return payload;
    const id = text(payload.metadata?.[METADATA_KEY_ID]);
    if (!id) throw new EncryptionKeyError('an encrypted payload carries no encryption key id: it was not written by this codec');
    if (!this.keys) {
      throw new EncryptionKeyError(
        `this run's data is encrypted (key id "${id}") and ${ENCRYPTION_KEYS_VARIABLE} is not set here: set it to the keys the workers use`,
        id,
      );
    }
    const entry = this.keys.byId.get(id);
    if (!entry) {
      throw new EncryptionKeyError(
        `this data is encrypted with key id "${id}", which ${ENCRYPTION_KEYS_VARIABLE} does not list ` +
          `(it lists ${[...this.keys.byId.keys()].join(', ')}): add that key back to read data written with it`,
        id,
      );
    }
    const data = Buffer.from(payload.data ?? new Uint8Array());
    let plain: Buffer;
    try {
      const decipher = createDecipheriv('aes-256-gcm', entry.key, data.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(id, 'utf8'));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)), decipher.final()]);
    } catch {
      throw new EncryptionKeyError(
        `data encrypted with key id "${id}" does not decrypt with the key "${id}" of ${ENCRYPTION_KEYS_VARIABLE}: ` +
          'the key is wrong (or the data was altered)',
        id,
      );
    }
    const compression = text(payload.metadata?.[METADATA_COMPRESSION]);
    let serialised = plain;
    if (compression === 'gzip') {
      try {
        serialised = await gunzipAsync(plain, { maxOutputLength: Math.max(1, maxBytes) });
      } catch (err) {
        if ((err as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') throw err;
        throw new DecodedTooLargeError(
          requestMax !== undefined && maxBytes < MAX_DECODED_PAYLOAD_BYTES
            ? `the payloads of this request decompress to more than ${requestMax} bytes: send fewer at once`
            : `a payload (key id "${id}") decompresses to more than ${MAX_DECODED_PAYLOAD_BYTES} bytes: it was not written by this codec`,
        );
      }
    }
    return PayloadMessage.decode(serialised);
  }
}

/** True when `codecs` encrypt payloads (so nothing derived from the task may go where codecs do not reach,
 * such as the workflow id). */
export function codecsEncrypt(codecs: readonly PayloadCodec[]): boolean {
  return codecs.some((c) => (c as Partial<EncryptionCodec>).encrypts === true);
}

/** The ids of the keys `codecs` hold, the one they encrypt with first; empty when they do not encrypt. */
export function codecKeyIds(codecs: readonly PayloadCodec[]): readonly string[] {
  return codecs.find((c): c is EncryptionCodec => (c as Partial<EncryptionCodec>).encrypts === true)?.keyIds ?? [];
}
