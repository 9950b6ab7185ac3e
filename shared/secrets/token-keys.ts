import { hkdfSync } from 'node:crypto';
import type { CustomerTokenKeys } from '#domain/ports.ts';
import { ConfigError, type RuntimeConfig } from '#shared/config.ts';
import { readLocalKeyFile } from './local-key-file.ts';

/**
 * Where customer tokens' signing keys come from (lifecycle.md §2). A stage names them in
 * CUSTOMER_TOKEN_KEYS, `id:secret` pairs separated by commas, the signing one first: the CDK
 * app fills it from one Secrets Manager secret per key id (infra/api-stack.ts), so a rotation
 * is a deploy that puts a new id first and, an hour later, one that drops the old. Locally
 * (`npm start`, the tests) the key is derived from the payment key file, so it outlives a
 * restart as the sealed payment keys do.
 */

const KEY_ID = /^[A-Za-z0-9_-]{1,16}$/;
const SECRET_MIN = 32;

export function tokenKeysFrom(pairs: readonly { id: string; secret: Buffer }[]): CustomerTokenKeys {
  const [signing] = pairs;
  if (!signing) throw new ConfigError('Invalid configuration: CUSTOMER_TOKEN_KEYS names no key');
  const byId = new Map(pairs.map((pair) => [pair.id, pair.secret]));
  return { signing, secretFor: (id) => byId.get(id) };
}

export function parseTokenKeys(text: string): CustomerTokenKeys {
  const pairs = text.split(',').map((entry) => {
    const at = entry.indexOf(':');
    const id = entry.slice(0, at).trim();
    const secret = entry.slice(at + 1).trim();
    if (at < 0 || !KEY_ID.test(id) || secret.length < SECRET_MIN) {
      // Never quotes the value: it holds the secrets.
      throw new ConfigError(
        `Invalid configuration: CUSTOMER_TOKEN_KEYS must be id:secret pairs separated by commas (ids of 1-16 of A-Z a-z 0-9 _ -, secrets of at least ${SECRET_MIN} characters)`,
      );
    }
    return { id, secret: Buffer.from(secret, 'utf8') };
  });
  return tokenKeysFrom(pairs);
}

/** A signing key derived from a local master key: another purpose than sealing, so another key. */
export const localTokenKeys = (masterKey: Buffer): CustomerTokenKeys =>
  tokenKeysFrom([
    { id: 'local', secret: Buffer.from(hkdfSync('sha256', masterKey, '', 'pricing customer tokens', 32)) },
  ]);

export function tokenKeysFor(
  config: Pick<RuntimeConfig, 'CUSTOMER_TOKEN_KEYS' | 'PAYMENT_KEY_FILE'>,
): CustomerTokenKeys {
  if (config.CUSTOMER_TOKEN_KEYS) return parseTokenKeys(config.CUSTOMER_TOKEN_KEYS);
  if (config.PAYMENT_KEY_FILE) return localTokenKeys(readLocalKeyFile(config.PAYMENT_KEY_FILE));
  throw new ConfigError(
    'Invalid configuration: customer tokens need CUSTOMER_TOKEN_KEYS (a stage) or PAYMENT_KEY_FILE (a local key file)',
  );
}
