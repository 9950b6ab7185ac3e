import { aggregationMethods } from '#contract/enums.ts';
import { defineEntity, entityModel } from './model.ts';
import { idAttribute } from './project-scope.ts';

/**
 * Usage metering. Three entities here (and `usageAlert` below), none in the project's
 * partition (a project's v1 reads stay one Query whatever its traffic):
 *
 * - `usage`: one aggregate per customer, feature, UTC month and aggregation method (a
 *   feature switched to another method starts that method's aggregate, and finds its old one
 *   again when switched back: no aggregate mixes two methods), in the project's customer
 *   partition (beside the customers, under its own sort-key prefix, so a page of the customer
 *   list never reads one). An entitlement read gets the customer and this month's aggregates
 *   of every countable feature in one BatchGetItem: every key is known.
 * - `usageUnique`: one marker per distinct `property` of a `unique_count` aggregate, created
 *   in the same transaction that counts it, so a property is counted once, also under
 *   concurrency. It expires once no event can reach its month any more.
 * - `usageEvent`: one dedupe entry per event id, in one of `USAGE_EVENT_SHARDS` partitions
 *   of the project (by a hash of the id, so a project's event stream is not one hot
 *   partition), created in the same transaction as the aggregate it feeds: an event id
 *   counts once, whatever is resent. The table's TTL removes it after 35 days.
 *
 * The writes are raw TransactWriteItems (shared/db/usage-item-keys.ts builds these very
 * keys; tests/unit/entity-keys.test.ts pins both); the entities read and sweep them.
 */
export const USAGE_EVENT_SHARDS = 16;

/** The thresholds of a limit whose crossing is sent once a month: 80% and 100%. */
export const USAGE_THRESHOLDS = ['approaching', 'reached'] as const;

export const usageAggregateEntity = defineEntity({
  model: entityModel('usage'),
  attributes: {
    projectId: idAttribute,
    customerId: { type: 'string', required: true, readOnly: true },
    /** The UTC month, `YYYY-MM`. */
    month: { type: 'string', required: true, readOnly: true },
    featureId: idAttribute,
    method: { type: aggregationMethods, required: true, readOnly: true },
    /** The aggregate: a count, a sum, a max, a number of distinct properties or the latest value. */
    amount: { type: 'number' },
    /** `latest`: the timestamp (epoch ms) of the event whose value `amount` is. */
    at: { type: 'number' },
    /**
     * The limit the last write decided its thresholds on (0: none); every write asks that the
     * aggregate hold its own or one it may replace (shared/db/usage-alert-limit.ts).
     */
    alertLimit: { type: 'number' },
    /** Epoch seconds: the table's TTL attribute (usage is kept 400 days). */
    expiresAt: { type: 'number' },
  },
  indexes: {
    byCustomer: {
      pk: { field: 'pk', composite: ['projectId'], casing: 'none' },
      sk: { field: 'sk', composite: ['customerId', 'month', 'featureId', 'method'], casing: 'none' },
    },
  },
});

export const usageUniqueEntity = defineEntity({
  model: entityModel('usageunique'),
  attributes: {
    projectId: idAttribute,
    customerId: { type: 'string', required: true, readOnly: true },
    month: { type: 'string', required: true, readOnly: true },
    featureId: idAttribute,
    property: { type: 'string', required: true, readOnly: true },
    expiresAt: { type: 'number' },
  },
  indexes: {
    byCustomer: {
      pk: { field: 'pk', composite: ['projectId'], casing: 'none' },
      sk: { field: 'sk', composite: ['customerId', 'month', 'featureId', 'property'], casing: 'none' },
    },
  },
});

/**
 * `usageAlert`: that a customer's usage of a feature crossed one threshold of its limit in
 * one month (`approaching`: 80%, `reached`: 100%). Put with its webhook event by the write
 * that crosses it, on the condition that it does not exist, so each is sent once per
 * customer, feature and month however many writers cross at once.
 */
export const usageAlertEntity = defineEntity({
  model: entityModel('usagealert'),
  attributes: {
    projectId: idAttribute,
    customerId: { type: 'string', required: true, readOnly: true },
    month: { type: 'string', required: true, readOnly: true },
    featureId: idAttribute,
    threshold: { type: USAGE_THRESHOLDS, required: true, readOnly: true },
    expiresAt: { type: 'number' },
  },
  indexes: {
    byCustomer: {
      pk: { field: 'pk', composite: ['projectId'], casing: 'none' },
      sk: { field: 'sk', composite: ['customerId', 'month', 'featureId', 'threshold'], casing: 'none' },
    },
  },
});

export const usageEventEntity = defineEntity({
  model: entityModel('usageevent'),
  attributes: {
    projectId: idAttribute,
    shard: { type: 'number', required: true, readOnly: true },
    eventId: { type: 'string', required: true, readOnly: true },
    expiresAt: { type: 'number', required: true },
  },
  indexes: {
    byShard: {
      pk: { field: 'pk', composite: ['projectId', 'shard'], casing: 'none' },
      sk: { field: 'sk', composite: ['eventId'], casing: 'none' },
    },
  },
});

/** A threshold of a limit whose crossing is sent once a month: 80% and 100%. */
export type UsageThreshold = (typeof USAGE_THRESHOLDS)[number];
