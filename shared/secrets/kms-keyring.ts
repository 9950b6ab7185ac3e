import type { Keyring } from '#domain/ports.ts';
import { ConfigError, type RuntimeConfig } from '#shared/config.ts';
import { kmsKeyring } from './keyring.ts';

/**
 * The deployed functions' keyring: KMS only (keyringFor in ./keyring.ts also reads a local key
 * file, for npm start and the tests). A Lambda never has a key file (infra sets
 * PAYMENT_KMS_KEY_ID and nothing else), so its bundle leaves the local keyring and the key
 * file code out (docs/decisions.md, "Bundles and cold starts").
 */
export function kmsKeyringFor(config: Pick<RuntimeConfig, 'PAYMENT_KMS_KEY_ID' | 'AWS_REGION'>): Keyring {
  if (!config.PAYMENT_KMS_KEY_ID) {
    throw new ConfigError(
      'Invalid configuration: payment keys need PAYMENT_KMS_KEY_ID (a KMS key) in a deployed function',
    );
  }
  // No endpoint here: the SDK reads AWS_ENDPOINT_URL_KMS itself.
  return kmsKeyring({ keyId: config.PAYMENT_KMS_KEY_ID, clientConfig: { region: config.AWS_REGION } });
}
