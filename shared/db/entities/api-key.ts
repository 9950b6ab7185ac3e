import type { CreateEntityItem, EntityItem } from 'electrodb';
import { permissions } from '#contract/enums.ts';
import { defineEntity, entityModel } from './model.ts';
import { ownerIndex } from './project-scope.ts';

/** Only a SHA-256 hash of the key's secret is stored; the plaintext is shown once. */
export const apiKeyEntity = defineEntity({
  model: entityModel('apiKey'),
  attributes: {
    keyId: { type: 'string', required: true, readOnly: true },
    ownerId: { type: 'string', required: true, readOnly: true },
    name: { type: 'string', required: true },
    permission: { type: permissions, required: true, readOnly: true },
    secretHash: { type: 'string', required: true, readOnly: true },
    createdAt: { type: 'string', required: true, readOnly: true },
    revokedAt: { type: 'string' },
  },
  indexes: {
    byKeyId: {
      pk: { field: 'pk', composite: ['keyId'], casing: 'none' },
      sk: { field: 'sk', composite: [], casing: 'none' },
    },
    byOwner: ownerIndex(['keyId']),
  },
});

export type ApiKeyItem = EntityItem<ReturnType<typeof apiKeyEntity>>;
export type NewApiKeyItem = CreateEntityItem<ReturnType<typeof apiKeyEntity>>;
