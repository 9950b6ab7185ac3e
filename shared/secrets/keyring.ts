import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, open as openFile, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { KMSClient, KMSClientConfig, KMSServiceException } from '@aws-sdk/client-kms';
import { type EncryptionContext, type Keyring, SecretUnreadableError } from '#domain/ports.ts';
import { ConfigError, type RuntimeConfig } from '#shared/config.ts';

/**
 * Envelope encryption for secrets a project stores with us (its Stripe key): every value is
 * encrypted under a fresh 256-bit data key, and only that data key is wrapped by the master
 * key (KMS in a deployed stage, a key file or memory locally). The encryption context (which
 * project the secret belongs to) is bound into both layers, so a sealed value copied onto
 * another project does not open there.
 *
 * Sealed format (ASCII, dot-separated, base64url parts):
 *   v1.local.<iv ‖ wrapped data key ‖ tag>.<iv>.<ciphertext ‖ tag>   data key wrapped with AES-256-GCM
 *   v1.kms.<KMS CiphertextBlob>.<iv>.<ciphertext ‖ tag>               data key wrapped by KMS
 */

export { type EncryptionContext, type Keyring, SecretUnreadableError };

type Kind = 'local' | 'kms';

const VERSION = 'v1';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const B64URL = /^[A-Za-z0-9_-]+$/;

/** The same context must give the same bytes whatever order its keys were written in. */
export function canonicalContext(context: EncryptionContext): string {
  const entries = Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Built by hand: JSON.stringify of an object would put integer-like keys first.
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
}

function gcmEncrypt(key: Uint8Array, data: Uint8Array, aad: Buffer): { iv: Buffer; sealed: Buffer } {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const sealed = Buffer.concat([cipher.update(data), cipher.final(), cipher.getAuthTag()]);
  return { iv, sealed };
}

/** Throws whatever node:crypto throws on a wrong key, AAD or tampered bytes. */
function gcmDecrypt(key: Uint8Array, iv: Buffer, sealed: Buffer, aad: Buffer): Buffer {
  // authTagLength pinned: otherwise a truncated tag would be accepted.
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  const chunks = [decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()];
  const plain = Buffer.concat(chunks);
  // The chunks hold a copy of what may be a data key.
  for (const chunk of chunks) chunk.fill(0);
  return plain;
}

interface Parsed {
  kind: Kind;
  wrappedKey: Buffer;
  iv: Buffer;
  ciphertext: Buffer;
}

const malformed = () =>
  new SecretUnreadableError('Sealed secret is malformed (expected v1.<local|kms>.<key>.<iv>.<ciphertext>)');

function parse(sealed: string): Parsed {
  const parts = sealed.split('.');
  if (parts.length !== 5) throw malformed();
  const [version, kind, key, iv, ciphertext] = parts as [string, string, string, string, string];
  if (version !== VERSION) {
    if (!/^v\d{1,3}$/.test(version)) throw malformed();
    throw new SecretUnreadableError(`Sealed secret has an unsupported format version (this code reads ${VERSION})`);
  }
  if (kind !== 'local' && kind !== 'kms') throw malformed();
  if (![key, iv, ciphertext].every((part) => B64URL.test(part))) throw malformed();
  const parsed: Parsed = {
    kind,
    wrappedKey: Buffer.from(key, 'base64url'),
    iv: Buffer.from(iv, 'base64url'),
    ciphertext: Buffer.from(ciphertext, 'base64url'),
  };
  if (parsed.iv.length !== IV_BYTES || parsed.ciphertext.length < TAG_BYTES) throw malformed();
  return parsed;
}

function format(kind: Kind, wrappedKey: Uint8Array, iv: Buffer, ciphertext: Buffer): string {
  const parts = [Buffer.from(wrappedKey), iv, ciphertext].map((bytes) => bytes.toString('base64url'));
  return [VERSION, kind, ...parts].join('.');
}

function parseFor(kind: Kind, sealed: string): Parsed {
  const parsed = parse(sealed);
  if (parsed.kind !== kind) {
    throw new SecretUnreadableError(
      `Sealed secret was sealed by a ${parsed.kind} keyring and cannot be opened by this ${kind} keyring`,
    );
  }
  return parsed;
}

function encryptPayload(dataKey: Uint8Array, plaintext: string, aad: Buffer) {
  const bytes = Buffer.from(plaintext, 'utf8');
  try {
    return gcmEncrypt(dataKey, bytes, aad);
  } finally {
    bytes.fill(0);
  }
}

function decryptPayload(dataKey: Uint8Array, parsed: Parsed, aad: Buffer): string {
  let bytes: Buffer;
  try {
    bytes = gcmDecrypt(dataKey, parsed.iv, parsed.ciphertext, aad);
  } catch {
    // The data key unwrapped, so the context matched: only the payload can have changed.
    throw new SecretUnreadableError('Sealed secret has been altered (its ciphertext does not authenticate)');
  }
  const text = bytes.toString('utf8');
  bytes.fill(0);
  return text;
}

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
    while (this.#entries.size > OPEN_CACHE_MAX) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }
}

type KmsSdk = typeof import('@aws-sdk/client-kms');
let kmsSdk: Promise<KmsSdk> | undefined;

/**
 * The KMS client's module, loaded at the first seal or open rather than at import: most
 * requests of the functions that hold a keyring never use it (projects seals a key only when
 * one is written; payments opens it for a checkout, and then for a few minutes from the cache
 * below). Its load is a cold start's cost (docs/decisions.md, "Bundles and cold starts").
 */
const loadKmsSdk = (): Promise<KmsSdk> => {
  kmsSdk ??= import('@aws-sdk/client-kms').catch((error: unknown) => {
    kmsSdk = undefined;
    throw error;
  });
  return kmsSdk;
};

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

/**
 * The keyring a configuration names: a KMS key in a deployed stage, or a local key file.
 * Built once per process by the composition root.
 */
export function keyringFor(
  config: Pick<RuntimeConfig, 'PAYMENT_KMS_KEY_ID' | 'PAYMENT_KEY_FILE' | 'AWS_REGION'>,
): Keyring {
  if (config.PAYMENT_KMS_KEY_ID) {
    // No endpoint here: the SDK reads AWS_ENDPOINT_URL_KMS itself.
    return kmsKeyring({ keyId: config.PAYMENT_KMS_KEY_ID, clientConfig: { region: config.AWS_REGION } });
  }
  if (config.PAYMENT_KEY_FILE) return localKeyring(readLocalKeyFile(config.PAYMENT_KEY_FILE));
  throw new ConfigError(
    'Invalid configuration: payment keys need PAYMENT_KMS_KEY_ID (a KMS key) or PAYMENT_KEY_FILE (a local key file)',
  );
}

/** A KMS client without the SDK's logger middleware, which copies every output for a logger we never set. */
function kmsClient(sdk: KmsSdk, config: KMSClientConfig): KMSClient {
  const client = new sdk.KMSClient(config);
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

export const LOCAL_KEY_FILE_NAME = 'payment-keys.key';

const KEY_TEXT = /^[A-Za-z0-9+/]{43}=$/;

/** Never quotes the content: it is, or is close to, the master key. */
function parseKeyText(text: string, path: string): Buffer {
  const trimmed = text.trim();
  const key = KEY_TEXT.test(trimmed) ? Buffer.from(trimmed, 'base64') : undefined;
  if (key?.length !== KEY_BYTES) {
    throw new ConfigError(
      `Invalid configuration: payment key file ${path} does not hold a base64-encoded ${KEY_BYTES}-byte key` +
        ' (if it is empty or damaged and nothing was sealed with it yet, delete it and npm start creates a new one)',
    );
  }
  return key;
}

const errorCode = (error: unknown) =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;

export function readLocalKeyFile(path: string): Buffer {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') {
      throw new ConfigError(
        `Invalid configuration: PAYMENT_KEY_FILE ${path} does not exist (npm start creates one under DATA_DIR;` +
          ' in a deployed stage set PAYMENT_KMS_KEY_ID instead)',
      );
    }
    throw new ConfigError(
      `Invalid configuration: PAYMENT_KEY_FILE ${path} cannot be read (${errorCode(error) ?? 'unknown error'})`,
    );
  }
  return parseKeyText(text, path);
}

/**
 * A second `npm start` racing the first may find the file created but not yet written;
 * it waits briefly for the content rather than calling the file corrupt.
 */
async function readExistingKeyText(path: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const text = await readFile(path, 'utf8').catch((error: unknown) => {
      throw new ConfigError(
        `Invalid configuration: payment key file ${path} cannot be read (${errorCode(error) ?? 'unknown error'})`,
      );
    });
    if (text.trim() !== '' || attempt >= 20) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function ensureLocalKeyFile(
  dataDir: string,
): Promise<{ path: string; created: boolean; warning?: string }> {
  const path = join(dataDir, LOCAL_KEY_FILE_NAME);
  await mkdir(dataDir, { recursive: true });

  const key = randomBytes(KEY_BYTES);
  try {
    // 'wx' fails if the file exists, so two starts never overwrite each other's key.
    const handle = await openFile(path, 'wx', 0o600).catch((error: unknown) => {
      if (errorCode(error) === 'EEXIST') return undefined;
      throw error;
    });
    if (handle) {
      try {
        await handle.writeFile(`${key.toString('base64')}\n`);
      } catch (error) {
        await handle.close();
        await unlink(path).catch(() => undefined);
        throw error;
      }
      await handle.close();
      return { path, created: true };
    }
  } finally {
    key.fill(0);
  }

  parseKeyText(await readExistingKeyText(path), path).fill(0);
  if (process.platform === 'win32') return { path, created: false };
  const { mode } = await stat(path);
  if ((mode & 0o077) === 0) return { path, created: false };
  // A warning, not a failure: some filesystems (mounted volumes, FAT) cannot hold the mode.
  return {
    path,
    created: false,
    warning: `Payment key file ${path} is accessible to other users (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
  };
}
