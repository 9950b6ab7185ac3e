import { createHash, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { permissions } from '#contract/enums.ts';
import {
  getApiKey,
  insertApiKey,
  listApiKeys as listApiKeyItems,
  revokeApiKey as revokeApiKeyItem,
} from '#db/api-keys.ts';
import type { ApiKeyItem } from '#db/types.ts';
import { NotFoundError, UnauthorizedError } from '../errors.ts';
import { name } from '../fields.ts';
import { ALNUM, LOWER_ALNUM, randomToken } from '../random.ts';
import { lazySchema, parse } from '../validation.ts';

/**
 * Keys look like `ppk_<keyId>_<secret>`: the key id (12 of [a-z0-9]) finds the record with
 * one GetItem, the secret (32 of [A-Za-z0-9], about 190 random bits) is only ever stored
 * as a SHA-256 hash and compared in constant time.
 */
const KEY_PATTERN = /^ppk_([a-z0-9]{12})_([A-Za-z0-9]{32})$/;

export type Permission = (typeof permissions)[number];

export interface Principal {
  keyId: string;
  ownerId: string;
  permission: Permission;
}

export const NewKeyInput = lazySchema(() =>
  z.object({
    ownerId: z.string().regex(/^[A-Za-z0-9._:@-]{1,128}$/, 'must be 1-128 characters of letters, digits and . _ : @ -'),
    permission: z.enum(permissions, { error: 'must be read or read_write' }),
    name: name().optional(),
  }),
);

const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

export async function createApiKey(input: z.input<ReturnType<typeof NewKeyInput>>) {
  const { ownerId, permission, name: label = '' } = parse(NewKeyInput, input, 'key options');
  const createdAt = new Date().toISOString();
  for (;;) {
    const keyId = randomToken(12, LOWER_ALNUM);
    const secret = randomToken(32, ALNUM);
    const outcome = await insertApiKey({
      keyId,
      ownerId,
      permission,
      name: label,
      secretHash: hashSecret(secret),
      createdAt,
    });
    if (outcome === 'created') {
      return { key: `ppk_${keyId}_${secret}`, id: keyId, ownerId, permission, name: label, createdAt };
    }
  }
}

const toSummary = (item: ApiKeyItem) => ({
  id: item.keyId,
  name: item.name,
  permission: item.permission,
  createdAt: item.createdAt,
  revokedAt: item.revokedAt ?? null,
});

export async function listApiKeys(ownerId: string) {
  const items = await listApiKeyItems(ownerId);
  return items.sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map(toSummary);
}

export async function revokeApiKey(keyId: string) {
  const notFound = new NotFoundError(`No API key has id "${keyId}".`);
  if (!/^[a-z0-9]{12}$/.test(keyId)) throw notFound;
  const revoked = await revokeApiKeyItem(keyId, new Date().toISOString());
  if (revoked === 'not_found') throw notFound;
  return { ...toSummary(revoked), ownerId: revoked.ownerId };
}

const MAX_CACHED_KEYS = 1000;

export type Authenticator = (presentedKey: string) => Promise<Principal>;

/**
 * Resolves a presented key to its owner and permission. Key records (and misses:
 * key ids are random, so one that is unknown now stays unknown) are cached for `ttlMs`,
 * so a warm container adds no DynamoDB request; a revocation takes effect within `ttlMs`.
 */
export function createAuthenticator({ ttlMs }: { ttlMs: number }): Authenticator {
  const cache = new Map<string, { record: ApiKeyItem | undefined; expiresAt: number }>();

  async function lookup(keyId: string): Promise<ApiKeyItem | undefined> {
    const now = Date.now();
    const cached = cache.get(keyId);
    if (cached && cached.expiresAt > now) return cached.record;
    const record = await getApiKey(keyId);
    if (ttlMs > 0) {
      if (cache.size >= MAX_CACHED_KEYS) cache.delete(cache.keys().next().value as string);
      cache.set(keyId, { record, expiresAt: now + ttlMs });
    }
    return record;
  }

  /** The key a request presented (shared/http reads it from the Authorization header). */
  return async function authenticate(presentedKey: string): Promise<Principal> {
    const match = KEY_PATTERN.exec(presentedKey);
    if (!match) throw new UnauthorizedError('Invalid API key: expected "Authorization: Bearer ppk_...".');
    const [, keyId = '', secret = ''] = match;
    const record = await lookup(keyId);
    const presented = Buffer.from(hashSecret(secret), 'hex');
    const stored = Buffer.from(record?.secretHash ?? '', 'hex');
    const matches = stored.length === presented.length && timingSafeEqual(stored, presented);
    if (!record || !matches || record.revokedAt) throw new UnauthorizedError('Invalid or revoked API key.');
    return { keyId, ownerId: record.ownerId, permission: record.permission };
  };
}
