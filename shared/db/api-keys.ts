import { ifConditionFails } from './errors.ts';
import { db } from './service.ts';
import type { ApiKeyItem, NewApiKeyItem } from './types.ts';

export async function insertApiKey(item: NewApiKeyItem): Promise<'created' | 'id_taken'> {
  const created = await ifConditionFails(db().entities.apiKey.create(item).go(), 'id_taken');
  return created === 'id_taken' ? created : 'created';
}

export async function getApiKey(keyId: string): Promise<ApiKeyItem | undefined> {
  const { data } = await db().entities.apiKey.get({ keyId }).go();
  return data ?? undefined;
}

export async function listApiKeys(ownerId: string): Promise<ApiKeyItem[]> {
  const { data } = await db().entities.apiKey.query.byOwner({ ownerId }).go({ pages: 'all' });
  return data;
}

/**
 * Revokes a key once: revoking it again keeps the first revocation time. Returns the key,
 * or 'not_found' when there is no such key.
 */
export async function revokeApiKey(keyId: string, revokedAt: string): Promise<ApiKeyItem | 'not_found'> {
  const patch = db()
    .entities.apiKey.patch({ keyId })
    .set({ revokedAt })
    .where(({ revokedAt: revoked }, { notExists }) => notExists(revoked));
  const revoked = await ifConditionFails(patch.go({ response: 'all_new' }), 'already_revoked');
  if (revoked !== 'already_revoked') return revoked.data;
  return (await getApiKey(keyId)) ?? 'not_found';
}
