import { describe, expect, test } from 'vitest';
import { UnauthorizedError } from '#domain/errors.ts';
import { liveSubscription } from '#domain/subscriptions/target.ts';
import { mintToken, TOKEN_LIFETIME_SECONDS, verifyToken } from '#domain/subscriptions/tokens.ts';
import { parseTokenKeys, tokenKeysFrom } from '#shared/secrets/token-keys.ts';

/** No I/O here: a token is verified from the keys in memory and its own claims only. */

const key = (id: string, fill: string) => ({ id, secret: Buffer.from(fill.repeat(32)) });
const clock = (ms: number) => ({ now: () => ms });
const at = Date.UTC(2030, 0, 1);

describe('customer tokens', () => {
  test('a minted token verifies, for its project and customer, until it expires an hour later', () => {
    const keys = tokenKeysFrom([key('k1', 'a')]);
    const { token, expiresAt } = mintToken(keys, clock(at), 7, 'user_42');
    expect(expiresAt).toBe(new Date(at + TOKEN_LIFETIME_SECONDS * 1000).toISOString());
    expect(verifyToken(keys, clock(at + 1000), `Bearer ${token}`)).toEqual({
      projectId: 7,
      customerId: 'user_42',
      expiresAt: at / 1000 + TOKEN_LIFETIME_SECONDS,
    });
    expect(() => verifyToken(keys, clock(at + TOKEN_LIFETIME_SECONDS * 1000), `Bearer ${token}`)).toThrow(
      UnauthorizedError,
    );
  });

  test('rotation: a token of the older key verifies while its id is listed, and not after', () => {
    const old = tokenKeysFrom([key('k1', 'a')]);
    const { token } = mintToken(old, clock(at), 1, 'c');
    const rotated = tokenKeysFrom([key('k2', 'b'), key('k1', 'a')]);
    expect(verifyToken(rotated, clock(at), `bearer ${token}`).customerId).toBe('c');
    expect(mintToken(rotated, clock(at), 1, 'c').token).toMatch(/^pct_k2\./);
    const dropped = tokenKeysFrom([key('k2', 'b')]);
    expect(() => verifyToken(dropped, clock(at), `Bearer ${token}`)).toThrow(UnauthorizedError);
  });

  test('forged, altered, another secret, malformed or absent: 401', () => {
    const keys = tokenKeysFrom([key('k1', 'a')]);
    const { token } = mintToken(keys, clock(at), 1, 'alice');
    const [head, , signature] = token.split('.') as [string, string, string];
    const bob = Buffer.from(JSON.stringify({ p: 1, c: 'bob', e: at / 1000 + 60 })).toString('base64url');
    const otherKeys = tokenKeysFrom([key('k1', 'z')]);
    for (const header of [
      `Bearer ${head}.${bob}.${signature}`,
      `Bearer ${mintToken(otherKeys, clock(at), 1, 'alice').token}`,
      `Bearer ${token}x`,
      `Basic ${token}`,
      token,
      'Bearer ppk_abc_def',
      undefined,
    ]) {
      expect(() => verifyToken(keys, clock(at), header), String(header)).toThrow(UnauthorizedError);
    }
  });

  test('CUSTOMER_TOKEN_KEYS: id:secret pairs, the signing one first; short secrets and bad ids are refused without echoing them', () => {
    const keys = parseTokenKeys(`k2:${'b'.repeat(40)},k1:${'a'.repeat(40)}`);
    expect(keys.signing.id).toBe('k2');
    expect(keys.secretFor('k1')?.toString()).toBe('a'.repeat(40));
    expect(() => parseTokenKeys('k1:short')).toThrow(/at least 32/);
    expect(() => parseTokenKeys(`bad id:${'a'.repeat(40)}`)).toThrow(/CUSTOMER_TOKEN_KEYS/);
    expect(() => parseTokenKeys('k1:short')).not.toThrow(/short/);
  });
});

describe('plan changes: what can change', () => {
  test('no subscription (checkout first) and an ended one are 409s', () => {
    expect(() => liveSubscription(null)).toThrow(/checkout first/);
    const ended = { status: 'canceled' } as Parameters<typeof liveSubscription>[0];
    expect(() => liveSubscription(ended)).toThrow(/canceled/);
  });
});
