// Before a history is replayed here, one encrypted payload of each key id in it is decoded with the client's
// codecs: a missing or wrong key then fails as the codec's own EncryptionKeyError (one line naming the key id and
// AGENT_ENCRYPTION_KEYS), not as a replay failure whose cause the workflow sandbox has encoded away.
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { ENCODING_ENCRYPTED, METADATA_KEY_ID } from '../codec/encryption-codec.js';
import { decodePayloads } from './decode.js';

const text = (bytes: unknown) => (bytes instanceof Uint8Array ? Buffer.from(bytes).toString('utf8') : undefined);

/** Throws what the client's codecs throw for the first encrypted payload of `history` they cannot decode. */
export async function assertHistoryReadable(client: Client, history: temporal.api.history.v1.IHistory): Promise<void> {
  for (const payload of oneEncryptedPayloadPerKey(history).values()) await decodePayloads(client, [payload]);
}

/** The first encrypted payload of each key id, anywhere in the events (inputs, results, failures, metadata). */
function oneEncryptedPayloadPerKey(history: temporal.api.history.v1.IHistory): Map<string, Payload> {
  const found = new Map<string, Payload>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 64 || value === null || typeof value !== 'object' || value instanceof Uint8Array) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
      return;
    }
    const metadata = (value as { metadata?: Record<string, unknown> }).metadata;
    if (metadata && typeof metadata === 'object' && text(metadata.encoding) === ENCODING_ENCRYPTED) {
      const id = text(metadata[METADATA_KEY_ID]) ?? '';
      if (!found.has(id)) found.set(id, value as Payload);
      return;
    }
    for (const child of Object.values(value)) visit(child, depth + 1);
  };
  visit(history.events ?? [], 0);
  return found;
}
