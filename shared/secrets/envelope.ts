import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type EncryptionContext, SecretUnreadableError } from '#domain/ports.ts';

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

type Kind = 'local' | 'kms';

const VERSION = 'v1';
export const KEY_BYTES = 32;
export const IV_BYTES = 12;
export const TAG_BYTES = 16;
const B64URL = /^[A-Za-z0-9_-]+$/;

/** The same context must give the same bytes whatever order its keys were written in. */
export function canonicalContext(context: EncryptionContext): string {
  const entries = Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Built by hand: JSON.stringify of an object would put integer-like keys first.
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
}

export function gcmEncrypt(key: Uint8Array, data: Uint8Array, aad: Buffer): { iv: Buffer; sealed: Buffer } {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const sealed = Buffer.concat([cipher.update(data), cipher.final(), cipher.getAuthTag()]);
  return { iv, sealed };
}

/** Throws whatever node:crypto throws on a wrong key, AAD or tampered bytes. */
export function gcmDecrypt(key: Uint8Array, iv: Buffer, sealed: Buffer, aad: Buffer): Buffer {
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

export const malformed = () =>
  new SecretUnreadableError('Sealed secret is malformed (expected v1.<local|kms>.<key>.<iv>.<ciphertext>)');

function parse(sealed: string) {
  const parts = sealed.split('.');
  if (parts.length !== 5) throw malformed();
  const [version, kind, key, iv, ciphertext] = parts as [string, string, string, string, string];
  if (version !== VERSION) {
    if (!/^v\d{1,3}$/.test(version)) throw malformed();
    throw new SecretUnreadableError(`Sealed secret has an unsupported format version (this code reads ${VERSION})`);
  }
  if (kind !== 'local' && kind !== 'kms') throw malformed();
  if (![key, iv, ciphertext].every((part) => B64URL.test(part))) throw malformed();
  const parsed = {
    kind,
    wrappedKey: Buffer.from(key, 'base64url'),
    iv: Buffer.from(iv, 'base64url'),
    ciphertext: Buffer.from(ciphertext, 'base64url'),
  };
  if (parsed.iv.length !== IV_BYTES || parsed.ciphertext.length < TAG_BYTES) throw malformed();
  return parsed;
}

export function format(kind: Kind, wrappedKey: Uint8Array, iv: Buffer, ciphertext: Buffer): string {
  const parts = [Buffer.from(wrappedKey), iv, ciphertext].map((bytes) => bytes.toString('base64url'));
  return [VERSION, kind, ...parts].join('.');
}

export function parseFor(kind: Kind, sealed: string) {
  const parsed = parse(sealed);
  if (parsed.kind !== kind) {
    throw new SecretUnreadableError(
      `Sealed secret was sealed by a ${parsed.kind} keyring and cannot be opened by this ${kind} keyring`,
    );
  }
  return parsed;
}

export function encryptPayload(dataKey: Uint8Array, plaintext: string, aad: Buffer) {
  const bytes = Buffer.from(plaintext, 'utf8');
  try {
    return gcmEncrypt(dataKey, bytes, aad);
  } finally {
    bytes.fill(0);
  }
}

export function decryptPayload(dataKey: Uint8Array, parsed: { iv: Buffer; ciphertext: Buffer }, aad: Buffer): string {
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
