// A consume: one event counted only while its customer's usage stays within the limit, in one
// transaction with the event's dedupe entry, so the limit and exactly-once hold together.

import { getAll } from './batch.ts';
import type { CustomerItem } from './entities/customer.ts';
import type { UsageThreshold } from './entities/usage.ts';
import { projectIsLive, writeTransaction } from './transactions.ts';
import type { ProjectScope } from './types.ts';
import { type LimitPin, sameLimitCondition } from './usage-alert-limit.ts';
import { aggregateExpiry, eventIdExpiry, markerExpiry } from './usage-expiry.ts';
import { entitlementKeys, eventShard, type MeteredFeature, usageKeys } from './usage-item-keys.ts';
import { type NewWebhookEventItem, putEvent } from './webhook-deliveries.ts';

export type { UsageThreshold };

/** A threshold the write crosses: its once-a-month marker and its outbox event. */
export interface UsageAlert {
  threshold: UsageThreshold;
  event: NewWebhookEventItem;
}

interface RangeOps {
  notExists(attribute: unknown): string;
  eq(attribute: unknown, value: number): string;
  lte(attribute: unknown, value: number): string;
  lt(attribute: unknown, value: number): string;
  gte(attribute: unknown, value: number): string;
}

/** The aggregate a consume counts in, and the event that counts. */
export interface ConsumeTarget {
  project: ProjectScope & { projectId: number };
  customerId: string;
  feature: MeteredFeature;
  /** `YYYY-MM`, UTC: the month of `at`. */
  month: string;
  eventId: string;
  /** The event's timestamp, epoch ms. */
  at: number;
}

/** What a consume's decision rests on, as stored (or as last seen). */
export interface ConsumeState {
  customer: CustomerItem | null;
  /** The aggregate's amount; null while none is stored. */
  usage: number | null;
  /** The limit the aggregate's thresholds were last decided on (usage-alert-limit.ts); null: none stored. */
  alertLimit: number | null;
}

/**
 * The customer, its aggregate and the event's dedupe entry, strongly consistent, in one
 * BatchGetItem. `counted`: the event id is remembered (by a consume or /events).
 */
export async function readConsumeState(target: ConsumeTarget): Promise<ConsumeState & { counted: boolean }> {
  const { project, customerId, month, feature, eventId } = target;
  const keys = [
    ...entitlementKeys(project.projectId, customerId, month, [feature]),
    usageKeys.event(project.projectId, eventId),
  ];
  const nowSeconds = Math.floor(Date.now() / 1000);
  const state: ConsumeState & { counted: boolean } = { customer: null, usage: null, alertLimit: null, counted: false };
  for (const item of await getAll(keys)) {
    if (item.__edb_e__ === 'customer') state.customer = item as unknown as CustomerItem;
    else if (item.__edb_e__ === 'usage') {
      state.usage = (item.amount as number | undefined) ?? null;
      state.alertLimit = typeof item.alertLimit === 'number' ? item.alertLimit : null;
    }
    // An entry past its expiry that TTL has not removed yet is gone all the same.
    else if (item.__edb_e__ === 'usageevent') state.counted = (item.expiresAt as number) >= nowSeconds;
  }
  return state;
}

/** Why a consume's transaction did not commit: each part names what changed, as stored now. */
export interface ConsumeRefused {
  projectGone: boolean;
  /** The event id is remembered already. */
  duplicate: boolean;
  /** The customer is no longer as assumed: here it is (null: none). */
  customer?: CustomerItem | null;
  /** The usage is no longer as assumed: here it is. */
  usage?: number;
  /**
   * The usage is no longer as assumed and what it is now did not come back: the aggregate is
   * gone (a deleted customer), or ElectroDB could not read it (it reads a cancelled action's
   * item with the SDK's default number options, which refuse a sum past 2^53 with a
   * fraction). Only a read says which.
   */
  usageUnknown?: boolean;
  /** With `usage`: the limit the aggregate holds now (null: none). */
  alertLimit?: number | null;
  /** Thresholds whose marker exists already: their event was sent this month. */
  alerted: UsageThreshold[];
}

/**
 * How the aggregate must stand for the write to commit: `exactly` as assumed (so the usage
 * after it is `assumed.usage + amount`, known without a read), or anything up to `max`
 * (null: any), which concurrent writers of one aggregate pass one after the other, and
 * `within` [lo, hi) when given (the range in which the write crosses no alert threshold).
 */
export type UsageCondition =
  | { exactly: true }
  | { max: number | null; within?: { lo: number | null; hi: number | null } | undefined };

/**
 * Adds `amount` to the aggregate in one transaction that also remembers the event id and
 * holds only while the project is live, the customer is as `assumed` (the caller computed
 * the limit from it) and the usage meets `condition`: so the limit holds under any number
 * of concurrent writers. The aggregate stores the limit its thresholds are decided on
 * (`decidedLimit`) and must hold no limit, that one or the one the caller saw with the
 * customer (usage-alert-limit.ts), as every /events write of it asks: a batch that decided
 * on a limit older than this customer's fails and decides again. When it does not commit,
 * what failed comes back as stored now.
 */
export async function writeConsume(
  target: ConsumeTarget,
  assumed: ConsumeState,
  amount: number,
  condition: UsageCondition,
  decidedLimit: number,
  alerts: readonly UsageAlert[] = [],
): Promise<'committed' | ConsumeRefused> {
  const { project, customerId, feature, month, eventId, at } = target;
  const { projectId } = project;
  const nowSeconds = Math.floor(Date.now() / 1000);
  const outcome = await writeTransaction((entities) => {
    const update = entities.usage
      .update({ projectId, customerId, month, featureId: feature.featureId, method: feature.method })
      .add({ amount })
      .set({ expiresAt: aggregateExpiry(month), alertLimit: decidedLimit });
    const pin: LimitPin = { decidedLimit, replaces: assumed.alertLimit ?? undefined };
    const sameLimit = (attribute: unknown, ops: RangeOps) => `(${sameLimitCondition(pin, attribute, ops) as string})`;
    const max = 'max' in condition ? condition.max : null;
    const within = 'max' in condition ? condition.within : undefined;
    const room = ({ amount: stored, alertLimit }: { amount: unknown; alertLimit: unknown }, ops: RangeOps) =>
      [
        sameLimit(alertLimit, ops),
        max === null ? '' : `(${ops.notExists(stored)} OR ${ops.lte(stored, max)})`,
        within?.lo == null ? '' : ops.gte(stored, within.lo),
        within?.hi == null ? '' : `(${ops.notExists(stored)} OR ${ops.lt(stored, within.hi)})`,
      ]
        .filter(Boolean)
        .join(' AND ');
    return [
      projectIsLive(entities, project),
      entities.customer
        .check({ projectId, customerId })
        .where((attributes, { eq, notExists }) =>
          assumed.customer === null
            ? notExists(attributes.version)
            : `${eq(attributes.version, assumed.customer.version)} AND ${eq(attributes.updatedAt, assumed.customer.updatedAt)}`,
        )
        .commit({ response: 'all_old' }),
      entities.usageEvent
        .put({ projectId, shard: eventShard(eventId), eventId, expiresAt: eventIdExpiry(at, nowSeconds) })
        .where(({ eventId: id, expiresAt }, { notExists, lt }) => `${notExists(id)} OR ${lt(expiresAt, nowSeconds)}`)
        .commit(),
      'exactly' in condition
        ? update
            .where(
              (attributes, ops) =>
                `${assumed.usage === null ? ops.notExists(attributes.amount) : ops.eq(attributes.amount, assumed.usage)} AND ${sameLimit(attributes.alertLimit, ops)}`,
            )
            .commit({ response: 'all_old' })
        : update.where((attributes, ops) => room(attributes, ops)).commit({ response: 'all_old' }),
      ...alerts.map(({ threshold }) =>
        entities.usageAlert
          .create({
            projectId,
            customerId,
            month,
            featureId: feature.featureId,
            threshold,
            expiresAt: markerExpiry(month),
          })
          .commit(),
      ),
      ...alerts.map(({ event }) => putEvent(entities, event)),
    ];
  });
  if (outcome.committed) return 'committed';
  const failed = (i: number) => outcome.reasons[i]?.code === 'ConditionalCheckFailed';
  const stored = (i: number) => outcome.reasons[i]?.item ?? null;
  const usage = stored(3)?.amount;
  const alertLimit = stored(3)?.alertLimit;
  return {
    projectGone: failed(0),
    duplicate: failed(2),
    ...(failed(1) ? { customer: stored(1) as CustomerItem | null } : {}),
    ...(failed(3)
      ? typeof usage === 'number'
        ? { usage, alertLimit: typeof alertLimit === 'number' ? alertLimit : null }
        : { usageUnknown: true }
      : {}),
    alerted: alerts.filter((_, i) => failed(4 + i)).map(({ threshold }) => threshold),
  };
}
