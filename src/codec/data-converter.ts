// The one data converter of the project: the worker, every client, every CLI command, the codec server and
// the replay tests build theirs here, so what one side encrypts the other decrypts.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { EncryptionCodec } from './encryption-codec.js';
import { keyRingFromEnv } from './keys.js';

/** The failure converter module (plain CommonJS, next to this file in src/ and in dist/). Pass it to
 * `bundleWorkflowCode({ failureConverterPath })` too: the workflow sandbox converts its own failures. */
export const FAILURE_CONVERTER_PATH = fileURLToPath(new URL('./failure-converter.cjs', import.meta.url));
if (!existsSync(FAILURE_CONVERTER_PATH)) {
  throw new Error(`${FAILURE_CONVERTER_PATH} is missing: the build must copy src/codec/failure-converter.cjs to dist/codec/`);
}

/** Encryption as AGENT_ENCRYPTION_KEYS says (none when it is unset). With keys, failure messages and stacks travel
 * as payloads, so they are encrypted with the rest (the Web UI shows "Encoded failure" until a codec server decodes
 * it); without, failures keep Temporal's own form, their messages in clear for `temporal workflow describe` and the
 * Web UI. Throws EncryptionKeyError for malformed keys. */
export function agentDataConverter(
  env: NodeJS.ProcessEnv = process.env,
  options: ConstructorParameters<typeof EncryptionCodec>[1] = {},
): DataConverter {
  const keys = keyRingFromEnv(env);
  return {
    ...(keys ? { failureConverterPath: FAILURE_CONVERTER_PATH } : {}),
    payloadCodecs: [new EncryptionCodec(keys, options)],
  };
}
