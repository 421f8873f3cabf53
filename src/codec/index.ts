export { agentDataConverter, FAILURE_CONVERTER_PATH } from './data-converter.js';
export { codecsEncrypt, EncryptionCodec, ENCODING_ENCRYPTED } from './encryption-codec.js';
export { ENCRYPTION_KEYS_VARIABLE, EncryptionKeyError, keyRingFromEnv, parseKeyRing, type KeyRing } from './keys.js';
