import type { KMSClient, KMSClientConfig, KMSServiceException } from '@aws-sdk/client-kms';
import { type Keyring, SecretUnreadableError } from '#domain/ports.ts';
import { ConfigError, type RuntimeConfig } from '#shared/config.ts';
import { atFirstUse } from '#shared/first-use.ts';
import { canonicalContext, decryptPayload, encryptPayload, format, KEY_BYTES, parseFor } from './envelope.ts';

const OPEN_CACHE_MAX = 100;
const OPEN_CACHE_TTL_MS = 5 * 60 * 1000;

/**
 * Checkout opens the project's key on every request, and each open would be a KMS Decrypt:
 * a network round trip on the request path and a charge per call. A warm Lambda serving the
 * same few projects keeps their opened keys for a few minutes instead. The TTL bounds how
 * long a plaintext lingers in memory and how long a revoked KMS grant goes unnoticed; the
 * cap bounds memory. Keyed by sealed value and context, so another context still has to
 * pass KMS.
 */
class OpenCache {
  readonly #entries = new Map<string, { value: string; expiresAt: number }>();

  get(key: string): string | undefined {
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    this.#entries.delete(key);
    if (hit.expiresAt <= Date.now()) return undefined;
    // Re-inserted so Map order is least-recently-used first.
    this.#entries.set(key, hit);
    return hit.value;
  }

  set(key: string, value: string): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: Date.now() + OPEN_CACHE_TTL_MS });
    // Entries come in one at a time, so one at most goes: the least recently used.
    const [oldest] = this.#entries.keys();
    if (this.#entries.size > OPEN_CACHE_MAX && oldest !== undefined) this.#entries.delete(oldest);
  }
}

type KmsSdk = typeof import('@aws-sdk/client-kms');

/**
 * The KMS client's module, loaded at the first seal or open rather than at import: most
 * requests of the functions that hold a keyring never use it (projects seals a key only when
 * one is written; payments opens it for a checkout, and then for a few minutes from the cache
 * below). Its load is a cold start's cost (docs/decisions.md, "Bundles and cold starts").
 */
const loadKmsSdk = atFirstUse(() => import('@aws-sdk/client-kms'));

// Other KMS failures (throttling, KMS or the network down) say nothing about the stored
// value, so they propagate rather than tell the caller the secret is unreadable.
const TRANSIENT_KMS_ERRORS = new Set(['LimitExceededException', 'ThrottlingException']);
const isUnreadableKmsError = (sdk: KmsSdk, error: unknown): error is KMSServiceException =>
  error instanceof sdk.KMSServiceException && error.$fault === 'client' && !TRANSIENT_KMS_ERRORS.has(error.name);

/**
 * `client`: a client of the caller's (tests); otherwise one is built from `clientConfig` at the
 * first call, when the SDK's module is loaded.
 */
export function kmsKeyring(options: { keyId: string; client?: KMSClient; clientConfig?: KMSClientConfig }): Keyring {
  const { keyId } = options;
  let client = options.client;
  const ready = async (): Promise<{ sdk: KmsSdk; client: KMSClient }> => {
    const sdk = await loadKmsSdk();
    client ??= kmsClient(sdk, options.clientConfig ?? {});
    return { sdk, client };
  };
  const cache = new OpenCache();
  return {
    async seal(plaintext, context) {
      const aad = Buffer.from(canonicalContext(context), 'utf8');
      const { sdk, client } = await ready();
      // Errors propagate: a seal failing is an infrastructure problem, not a bad input.
      const out = await client.send(
        new sdk.GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context }),
      );
      const dataKey = out.Plaintext;
      try {
        if (!dataKey || dataKey.length !== KEY_BYTES || !out.CiphertextBlob?.length) {
          throw new Error('KMS GenerateDataKey did not return a 256-bit data key');
        }
        const payload = encryptPayload(dataKey, plaintext, aad);
        return format('kms', out.CiphertextBlob, payload.iv, payload.sealed);
      } finally {
        dataKey?.fill(0);
      }
    },
    async open(sealed, context) {
      const canonical = canonicalContext(context);
      const cacheKey = `${sealed}\n${canonical}`;
      const cached = cache.get(cacheKey);
      if (cached !== undefined) return cached;

      const parsed = parseFor('kms', sealed);
      const aad = Buffer.from(canonical, 'utf8');
      const { sdk, client } = await ready();
      let dataKey: Uint8Array | undefined;
      try {
        // KeyId pinned: KMS then refuses a blob that some other key (another account's) wrapped.
        const out = await client.send(
          new sdk.DecryptCommand({ CiphertextBlob: parsed.wrappedKey, EncryptionContext: context, KeyId: keyId }),
        );
        dataKey = out.Plaintext;
      } catch (error) {
        if (isUnreadableKmsError(sdk, error)) {
          throw new SecretUnreadableError(`KMS could not decrypt the sealed secret's data key: ${error.name}`, {
            cause: error,
          });
        }
        throw error;
      }
      try {
        if (!dataKey || dataKey.length !== KEY_BYTES) {
          throw new SecretUnreadableError('KMS Decrypt did not return a 256-bit data key');
        }
        const value = decryptPayload(dataKey, parsed, aad);
        cache.set(cacheKey, value);
        return value;
      } finally {
        dataKey?.fill(0);
      }
    },
  };
}

/** A KMS client without the SDK's logger middleware, which copies every output for a logger we never set. */
function kmsClient(sdk: KmsSdk, config: KMSClientConfig): KMSClient {
  const client = new sdk.KMSClient(config);
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

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
