import { isConditionalCheckFailed } from './errors.ts';
import { db } from './service.ts';
import type { ApiKeyItem, NewApiKeyItem } from './types.ts';

export async function insertApiKey(item: NewApiKeyItem): Promise<'created' | 'id_taken'> {
  try {
    await db().entities.apiKey.create(item).go();
    return 'created';
  } catch (error) {
    if (isConditionalCheckFailed(error)) return 'id_taken';
    throw error;
  }
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
 * or undefined when there is no such key.
 */
export async function revokeApiKey(keyId: string, revokedAt: string): Promise<ApiKeyItem | undefined> {
  try {
    const { data } = await db()
      .entities.apiKey.patch({ keyId })
      .set({ revokedAt })
      .where(({ revokedAt: revoked }, { notExists }) => notExists(revoked))
      .go({ response: 'all_new' });
    return data as ApiKeyItem;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return getApiKey(keyId);
    throw error;
  }
}
