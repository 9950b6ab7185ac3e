import { randomBytes } from 'node:crypto';
import { type EncryptionContext, type Keyring, SecretUnreadableError } from '#domain/ports.ts';
import { ConfigError, type RuntimeConfig } from '#shared/config.ts';
import {
  canonicalContext,
  decryptPayload,
  encryptPayload,
  format,
  gcmDecrypt,
  gcmEncrypt,
  IV_BYTES,
  KEY_BYTES,
  malformed,
  parseFor,
  TAG_BYTES,
} from './envelope.ts';
import { kmsKeyringFor } from './kms-keyring.ts';
import { readLocalKeyFile } from './local-key-file.ts';

export { type EncryptionContext, type Keyring, SecretUnreadableError };

/** A keyring whose master key is in memory (a local key file's): the data key is wrapped with AES-256-GCM. */
export function localKeyring(masterKey: Buffer): Keyring {
  if (masterKey.length !== KEY_BYTES) throw new RangeError(`A local master key must be ${KEY_BYTES} bytes`);
  // A copy, so a caller zeroing or reusing its buffer cannot change what this keyring holds.
  const master = Buffer.from(masterKey);
  return {
    async seal(plaintext, context) {
      const aad = Buffer.from(canonicalContext(context), 'utf8');
      const dataKey = randomBytes(KEY_BYTES);
      try {
        const wrap = gcmEncrypt(master, dataKey, aad);
        const payload = encryptPayload(dataKey, plaintext, aad);
        return format('local', Buffer.concat([wrap.iv, wrap.sealed]), payload.iv, payload.sealed);
      } finally {
        dataKey.fill(0);
      }
    },
    async open(sealed, context) {
      const parsed = parseFor('local', sealed);
      if (parsed.wrappedKey.length !== IV_BYTES + KEY_BYTES + TAG_BYTES) throw malformed();
      const aad = Buffer.from(canonicalContext(context), 'utf8');
      let dataKey: Buffer;
      try {
        dataKey = gcmDecrypt(
          master,
          parsed.wrappedKey.subarray(0, IV_BYTES),
          parsed.wrappedKey.subarray(IV_BYTES),
          aad,
        );
      } catch {
        throw new SecretUnreadableError(
          'Sealed secret does not open with this master key and encryption context (another project, or another key file)',
        );
      }
      try {
        return decryptPayload(dataKey, parsed, aad);
      } finally {
        dataKey.fill(0);
      }
    },
  };
}

/**
 * The keyring a configuration names: a KMS key in a deployed stage, or a local key file.
 * Built once per process by the composition root.
 */
export function keyringFor(
  config: Pick<RuntimeConfig, 'PAYMENT_KMS_KEY_ID' | 'PAYMENT_KEY_FILE' | 'AWS_REGION'>,
): Keyring {
  if (config.PAYMENT_KMS_KEY_ID) return kmsKeyringFor(config);
  if (config.PAYMENT_KEY_FILE) return localKeyring(readLocalKeyFile(config.PAYMENT_KEY_FILE));
  throw new ConfigError(
    'Invalid configuration: payment keys need PAYMENT_KMS_KEY_ID (a KMS key) or PAYMENT_KEY_FILE (a local key file)',
  );
}
