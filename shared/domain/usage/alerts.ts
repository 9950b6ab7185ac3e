import type { WebhookEventType } from '#contract/enums.ts';
import type { CustomerItem, ProjectKey, ProjectPartition } from '#db/types.ts';
import type { UsageAlertRules } from '#db/usage-alerts.ts';
import type { UsageAlert, UsageThreshold } from '#db/usage-consume.ts';
import { featureEntitlement } from '../customers/entitlements.ts';
import { heldPlan, settled } from '../customers/held-plan.ts';
import { storedSubscription } from '../customers/store.ts';
import { outboxEvent } from '../webhooks-out/events.ts';

/**
 * Usage crossing 80% and 100% of a limit (lifecycle.md §4): the write that crosses a
 * threshold writes its event, with a marker that exists once per customer, feature, month
 * and threshold, in its own transaction. Which writes cross is decided on the usage before
 * the write, which the write's condition pins: exactly, for a write that crosses, or to a
 * range in which it crosses nothing.
 */

const TYPES: Record<UsageThreshold, WebhookEventType> = {
  approaching: 'usage.limit_approaching',
  reached: 'usage.limit_reached',
};

const points = (limit: number) =>
  [
    { threshold: 'approaching', at: limit * 0.8 },
    { threshold: 'reached', at: limit },
  ] as const;

/** Whether alerts apply: a positive limit, and usage a double still holds exactly. */
const alerting = (limit: number | null, usage: number): limit is number =>
  limit !== null && limit > 0 && usage <= Number.MAX_SAFE_INTEGER;

/** The thresholds a write from `before` to `after` crosses (both when it passes both). */
export function crossed(limit: number | null, before: number, after: number): UsageThreshold[] {
  if (!alerting(limit, before)) return [];
  return points(limit)
    .filter((point) => before < point.at && after >= point.at)
    .map((point) => point.threshold);
}

/**
 * The stored usage, around `usage`, in which a write adding `added` crosses no threshold:
 * `[lo, hi)` (null: unbounded). Undefined when from `usage` the write crosses one.
 */
export function quietRange(limit: number | null, usage: number, added: number) {
  if (!alerting(limit, usage)) return { lo: null, hi: null };
  let lo: number | null = null;
  let hi: number | null = null;
  for (const point of points(limit)) {
    const start = point.at - added;
    if (usage >= start && usage < point.at) return undefined;
    if (usage >= point.at) lo = Math.max(lo ?? point.at, point.at);
    else hi = Math.min(hi ?? start, start);
  }
  return { lo, hi };
}

/** The highest threshold at or below `usage` (a max raised to it crosses none when already there), or null. */
export function passed(limit: number, usage: number): number | null {
  const below = points(limit).filter((point) => point.at <= usage);
  return below.length === 0 ? null : Math.max(...below.map((point) => point.at));
}

/** The markers and outbox events of the thresholds a write crosses. */
export function usageAlerts(
  projectId: number,
  thresholds: readonly UsageThreshold[],
  data: { customerId: string; featureId: number; usage: number; limit: number | null; month: string },
): UsageAlert[] {
  return thresholds.map((threshold) => ({ threshold, event: outboxEvent(projectId, TYPES[threshold], data) }));
}

/** A stored customer's subscription as of now, and the version it holds when not the plan as cached. */
async function holdingNow(
  key: ProjectKey,
  partition: ProjectPartition,
  customer: Record<string, unknown> | undefined,
  now: number,
) {
  const subscription = settled(storedSubscription(customer as CustomerItem | undefined), now);
  return { subscription, held: await heldPlan(key, partition, subscription) };
}

/**
 * The thresholds of a batch of /events (shared/db/usage-alerts.ts): each customer's limit as
 * its stored subscription grants it now, read with the aggregates before the batch writes,
 * from the version it holds (a change due at period end applied), as consume decides it: both
 * store the limit they decided on in the aggregate, and each requires the other's.
 */
export function batchAlertRules(key: ProjectKey, partition: ProjectPartition, now: number): UsageAlertRules {
  const { projectId } = partition.project;
  // A customer's groups (one per feature) share the item storage read for it: its plan is
  // settled and looked up once for them all, not once per feature. Keyed by the item, so a
  // customer read again is decided on what the new read holds.
  const holdings = new Map<Record<string, unknown> | undefined, ReturnType<typeof holdingNow>>();
  const holdingOf = (customer: Record<string, unknown> | undefined) => {
    const holding = holdings.get(customer) ?? holdingNow(key, partition, customer, now);
    holdings.set(customer, holding);
    return holding;
  };
  return {
    async limitOf(group, customer) {
      const feature = partition.features.find((f) => f.featureId === group.featureId);
      if (!feature) return null;
      const { subscription, held } = await holdingOf(customer);
      const entitlement = featureEntitlement(partition, feature, subscription, 0, new Date(now), held);
      return entitlement.hasAccess ? entitlement.limit : null;
    },
    crossed,
    quietRange,
    passed,
    event: (group, threshold, usage, limit) =>
      outboxEvent(projectId, TYPES[threshold], {
        customerId: group.customerId,
        featureId: group.featureId,
        usage,
        limit,
        month: group.month,
      }),
  };
}
