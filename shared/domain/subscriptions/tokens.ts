import { createHmac, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '../errors.ts';
import type { Clock, CustomerTokenKeys } from '../ports.ts';

/**
 * Customer tokens (lifecycle.md §2): what a widget holds to act for one customer of one
 * project for an hour. `pct_<keyId>.<claims>.<signature>`: the claims are base64url JSON
 * `{p: projectId, c: customerId, e: expiry in epoch seconds}`, the signature base64url
 * HMAC-SHA256 over `<keyId>.<claims>` with the key the id names. Verified without reading
 * anything: the key is in memory, the claims in the token. The `pct_` prefix is not an API
 * key's (`ppk_`), so v1 never takes one.
 */

export const TOKEN_LIFETIME_SECONDS = 60 * 60;
const TOKEN = /^pct_([A-Za-z0-9_-]{1,16})\.([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/;

export interface TokenClaims {
  projectId: number;
  customerId: string;
  /** Epoch seconds. */
  expiresAt: number;
}

const sign = (secret: Buffer, signed: string) => createHmac('sha256', secret).update(signed).digest();

export function mintToken(keys: CustomerTokenKeys, clock: Clock, projectId: number, customerId: string) {
  const expiresAt = Math.floor(clock.now() / 1000) + TOKEN_LIFETIME_SECONDS;
  const claims = Buffer.from(JSON.stringify({ p: projectId, c: customerId, e: expiresAt })).toString('base64url');
  const signed = `${keys.signing.id}.${claims}`;
  const token = `pct_${signed}.${sign(keys.signing.secret, signed).toString('base64url')}`;
  return { token, expiresAt: new Date(expiresAt * 1000).toISOString() };
}

const refused = () =>
  new UnauthorizedError(
    'Missing, expired or invalid customer token: send "Authorization: Bearer <token>" with a token your backend minted for this pricing page.',
  );

/** The claims of a token signed by a known key and not expired; anything else is a 401. */
export function verifyToken(keys: CustomerTokenKeys, clock: Clock, authorization: string | undefined): TokenClaims {
  const match = TOKEN.exec(/^bearer (\S+)$/i.exec(authorization ?? '')?.[1] ?? '');
  if (!match) throw refused();
  const [, keyId = '', claims = '', signature = ''] = match;
  const secret = keys.secretFor(keyId);
  if (!secret) throw refused();
  const expected = sign(secret, `${keyId}.${claims}`);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw refused();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  const { p, c, e } = (parsed ?? {}) as { p?: unknown; c?: unknown; e?: unknown };
  if (typeof p !== 'number' || typeof c !== 'string' || typeof e !== 'number') throw refused();
  if (e * 1000 <= clock.now()) throw refused();
  return { projectId: p, customerId: c, expiresAt: e };
}
