import type { EntityItem } from 'electrodb';
import { defineEntity, entityModel } from './model.ts';

/**
 * One `Idempotency-Key` of one owner: who holds it
 * while the first request runs (`token`, `lockedUntil`), then the answer to replay. Each
 * record is its own partition (owner and key), so keys never share a hot partition, and the
 * table's TTL attribute removes it after `expiresAt`.
 */
export const idempotencyRecordEntity = defineEntity({
  model: entityModel('idempotencyRecord'),
  attributes: {
    ownerId: { type: 'string', required: true, readOnly: true },
    key: { type: 'string', required: true, readOnly: true },
    routeKey: { type: 'string', required: true },
    fingerprint: { type: 'string', required: true },
    token: { type: 'string', required: true },
    state: { type: ['running', 'done'] as const, required: true },
    /** Epoch milliseconds after which a `running` claim is abandoned (its function timed out). */
    lockedUntil: { type: 'number', required: true },
    /** The kept answer: gzip of its JSON, base64. */
    response: { type: 'string' },
    /** Epoch seconds: the table's TTL attribute. */
    expiresAt: { type: 'number', required: true },
  },
  indexes: {
    byKey: {
      pk: { field: 'pk', composite: ['ownerId', 'key'], casing: 'none' },
      sk: { field: 'sk', composite: [], casing: 'none' },
    },
  },
});

export type IdempotencyRecordItem = EntityItem<ReturnType<typeof idempotencyRecordEntity>>;
