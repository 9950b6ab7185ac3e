import { randomBytes } from 'node:crypto';

export const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A uniformly random string over `alphabet` (rejection sampling, so no modulo bias). */
export function randomToken(length: number, alphabet: string): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}
