// Reading payloads and failures the server hands back outside a workflow's history events (a description's pending
// activities, a run's start input), through the client's data converter: its payload codecs (decryption), then its
// payload and failure converters. Public SDK API only.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

type Payload = temporal.api.common.v1.IPayload;
type Failure = temporal.api.failure.v1.IFailure;

/** `payloads` through the client's payload codecs (decrypted), not yet converted to values. */
export async function decodePayloads(client: Client, payloads: Payload[]): Promise<Payload[]> {
  let decoded = payloads;
  // Codecs encode in order, so they decode in reverse.
  for (const codec of [...client.options.loadedDataConverter.payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return decoded;
}

/** The value at `index` of `payloads`, decoded (undefined when there is none). */
export async function decodePayloadAt<T>(client: Client, payloads: Payload[] | null | undefined, index: number): Promise<T | undefined> {
  const payload = payloads?.[index];
  if (!payload) return undefined;
  const [decoded] = await decodePayloads(client, [payload]);
  return client.options.loadedDataConverter.payloadConverter.fromPayload<T>(decoded);
}

/** A failure as an Error, its encoded message and stack (with encryption on) decoded first, causes included. */
export async function decodeFailure(client: Client, failure: Failure | null | undefined): Promise<Error | undefined> {
  if (!failure) return undefined;
  const { payloadConverter, failureConverter } = client.options.loadedDataConverter;
  return failureConverter.failureToError(await decodedFailure(client, failure), payloadConverter);
}

async function decodedFailure(client: Client, failure: Failure): Promise<Failure> {
  const [encodedAttributes] = failure.encodedAttributes ? await decodePayloads(client, [failure.encodedAttributes]) : [undefined];
  return {
    ...failure,
    ...(encodedAttributes ? { encodedAttributes } : {}),
    ...(failure.cause ? { cause: await decodedFailure(client, failure.cause) } : {}),
  };
}

/** A protobuf timestamp as a Date (undefined when unset). */
export function timestampToDate(t: { seconds?: unknown; nanos?: number | null } | null | undefined): Date | undefined {
  if (!t) return undefined;
  return new Date(Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6));
}
