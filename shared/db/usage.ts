import { deleteAll, deleteEveryPage, getAll } from './batch.ts';
import { USAGE_EVENT_SHARDS } from './entities/usage.ts';
import { db } from './service.ts';
import type { CustomerItem } from './types.ts';
import { entitlementKeys, eventShard, type MeteredFeature } from './usage-item-keys.ts';
import type { AggregateEvents } from './usage-write.ts';

export type { MeteredFeature } from './usage-item-keys.ts';
export {
  type AggregateEvents,
  type AggregationRules,
  type ApplyOutcome,
  applyUsage,
  CONFLICT_BUDGET_MS,
  type MeteredEvent,
  type UsageWriteOptions,
} from './usage-write.ts';

/**
 * A customer and its aggregates of one month for the given features, strongly consistent:
 * one BatchGetItem while they fit in one (99 countable features), whatever else is stored.
 * Items come back as stored, without ElectroDB's formatting (the entitlement read is hot).
 */
export async function readCustomerWithUsage(
  projectId: number,
  customerId: string,
  month: string,
  features: readonly MeteredFeature[],
): Promise<{ customer: CustomerItem | undefined; usage: Map<number, number> }> {
  const found = await getAll(entitlementKeys(projectId, customerId, month, features));
  let customer: CustomerItem | undefined;
  const usage = new Map<number, number>();
  for (const item of found) {
    if (item.__edb_e__ === 'usage') usage.set(item.featureId as number, (item.amount as number | undefined) ?? 0);
    else if (item.__edb_e__ === 'customer') customer = item as unknown as CustomerItem;
  }
  return { customer, usage };
}

type AggregateKey = { projectId: number; customerId: string; month: string; featureId: number; method: string };
type UniqueKey = { projectId: number; customerId: string; month: string; featureId: number; property: string };
type AlertKey = { projectId: number; customerId: string; month: string; featureId: number; threshold: string };
const aggregateKey = ['projectId', 'customerId', 'month', 'featureId', 'method'] as const;
const uniqueKey = ['projectId', 'customerId', 'month', 'featureId', 'property'] as const;
const alertKey = ['projectId', 'customerId', 'month', 'featureId', 'threshold'] as const;

/** A customer's usage (aggregates, unique markers and alert markers); how many items were deleted. */
export async function deleteCustomerUsage(projectId: number, customerId: string): Promise<number> {
  const { usage, usageUnique, usageAlert } = db().entities;
  const options = (cursor: string | null) => ({ cursor, consistent: true });
  const counts = await Promise.all([
    deleteEveryPage<AggregateKey>(usage, (cursor) =>
      usage.query.byCustomer({ projectId, customerId }).go({ ...options(cursor), attributes: [...aggregateKey] }),
    ),
    deleteEveryPage<UniqueKey>(usageUnique, (cursor) =>
      usageUnique.query.byCustomer({ projectId, customerId }).go({ ...options(cursor), attributes: [...uniqueKey] }),
    ),
    deleteEveryPage<AlertKey>(usageAlert, (cursor) =>
      usageAlert.query.byCustomer({ projectId, customerId }).go({ ...options(cursor), attributes: [...alertKey] }),
    ),
  ]);
  return counts[0] + counts[1] + counts[2];
}

/**
 * Every usage item of a deleted project: aggregates, unique and alert markers, and the event
 * ids of each of its event partitions. Run by the project sweep (shared/db/project-sweep.ts).
 */
export async function sweepUsage(projectId: number): Promise<void> {
  const { usage, usageUnique, usageAlert, usageEvent } = db().entities;
  await deleteEveryPage<AggregateKey>(usage, (cursor) =>
    usage.query.byCustomer({ projectId }).go({ cursor, consistent: true, attributes: [...aggregateKey] }),
  );
  await deleteEveryPage<UniqueKey>(usageUnique, (cursor) =>
    usageUnique.query.byCustomer({ projectId }).go({ cursor, consistent: true, attributes: [...uniqueKey] }),
  );
  await deleteEveryPage<AlertKey>(usageAlert, (cursor) =>
    usageAlert.query.byCustomer({ projectId }).go({ cursor, consistent: true, attributes: [...alertKey] }),
  );
  await Promise.all(
    Array.from({ length: USAGE_EVENT_SHARDS }, (_, shard) =>
      deleteEveryPage<{ projectId: number; shard: number; eventId: string }>(usageEvent, (cursor) =>
        usageEvent.query
          .byShard({ projectId, shard })
          .go({ cursor, consistent: true, attributes: ['projectId', 'shard', 'eventId'] }),
      ),
    ),
  );
}

/** Deletes the given usage items (what a batch wrote into a project deleted meanwhile). */
export async function deleteUsageItems(projectId: number, groups: readonly AggregateEvents[]): Promise<void> {
  const { usage, usageUnique, usageEvent } = db().entities;
  await deleteAll(
    usage,
    groups.map(({ customerId, month, featureId, method }) => ({ projectId, customerId, month, featureId, method })),
  );
  await deleteAll(
    usageUnique,
    groups.flatMap(({ customerId, month, featureId, method, events }) =>
      method === 'unique_count'
        ? [...new Set(events.map((e) => e.property as string))].map((property) => ({
            projectId,
            customerId,
            month,
            featureId,
            property,
          }))
        : [],
    ),
  );
  await deleteAll(
    usageEvent,
    groups.flatMap(({ events }) => events.map(({ eventId }) => ({ projectId, shard: eventShard(eventId), eventId }))),
  );
}
