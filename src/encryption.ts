// `durable-agent/encryption`: payload encryption beyond the data converter the root exports. The codec itself
// (for a data converter of your own), the key ring parser, the codec server the Temporal Web UI decodes through,
// and the failure converter a workflow bundle of your own needs so that failure messages are encrypted too.
export { agentDataConverter, FAILURE_CONVERTER_PATH } from './codec/data-converter.js';
export { EncryptionCodec } from './codec/encryption-codec.js';
export { ENCRYPTION_KEYS_VARIABLE, EncryptionKeyError, keyRingFromEnv, parseKeyRing, type EncryptionKey, type KeyRing } from './codec/keys.js';
export { startCodecServer, type CodecServer, type CodecServerOptions } from './codec/codec-server.js';
