import type { AggregationMethod } from '#contract/enums.ts';
import { USAGE_EVENT_SHARDS } from './entities/usage.ts';

/** A countable feature as its aggregates are keyed: by id and by its aggregation method. */
export interface MeteredFeature {
  featureId: number;
  method: AggregationMethod;
}

// The keys ElectroDB gives these entities (shared/db/entities/usage.ts), built here without
// it: a batch writes up to a thousand of them. tests/unit/entity-keys.test.ts pins both.
const pad = (id: number) => String(id).padStart(12, '0');
export const customerPartition = (projectId: number) => `$pricing#projectId_${pad(projectId)}`;
export const customerSk = (customerId: string) => `$customer_1#customerId_${customerId}`;
export const aggregateSk = (customerId: string, month: string, { featureId, method }: MeteredFeature) =>
  `$usage_1#customerId_${customerId}#month_${month}#featureId_${pad(featureId)}#method_${method}`;
export const uniqueSk = (customerId: string, month: string, featureId: number, property: string) =>
  `$usageunique_1#customerId_${customerId}#month_${month}#featureId_${pad(featureId)}#property_${property}`;

export const alertSk = (customerId: string, month: string, featureId: number, threshold: string) =>
  `$usagealert_1#customerId_${customerId}#month_${month}#featureId_${pad(featureId)}#threshold_${threshold}`;

/** FNV-1a of the event id: which of the project's event partitions holds its dedupe entry. */
export function eventShard(eventId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < eventId.length; i++) {
    hash ^= eventId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % USAGE_EVENT_SHARDS;
}

export const usageKeys = {
  aggregate: (projectId: number, customerId: string, month: string, feature: MeteredFeature) => ({
    pk: customerPartition(projectId),
    sk: aggregateSk(customerId, month, feature),
  }),
  unique: (projectId: number, customerId: string, month: string, featureId: number, property: string) => ({
    pk: customerPartition(projectId),
    sk: uniqueSk(customerId, month, featureId, property),
  }),
  alert: (projectId: number, customerId: string, month: string, featureId: number, threshold: string) => ({
    pk: customerPartition(projectId),
    sk: alertSk(customerId, month, featureId, threshold),
  }),
  event: (projectId: number, eventId: string) => ({
    pk: `${customerPartition(projectId)}#shard_${eventShard(eventId)}`,
    sk: `$usageevent_1#eventId_${eventId}`,
  }),
};

/** The keys an entitlement read gets: the customer, and its month's aggregate of each feature. */
export function entitlementKeys(
  projectId: number,
  customerId: string,
  month: string,
  features: readonly MeteredFeature[],
) {
  const pk = customerPartition(projectId);
  return [
    { pk, sk: customerSk(customerId) },
    ...features.map((feature) => ({ pk, sk: aggregateSk(customerId, month, feature) })),
  ];
}
