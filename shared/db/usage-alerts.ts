// Usage thresholds in a batch of /events (shared/domain/usage/alerts.ts decides): the
// condition that pins an aggregate's usage before the write, and the marker and outbox items
// of the thresholds the write crosses, as raw transaction items.

import type { UsageThreshold } from './entities/usage.ts';
import { db } from './service.ts';
import type { TransactItem } from './transactions.ts';
import { markerExpiry } from './usage-expiry.ts';
import type { NewWebhookEventItem } from './webhook-deliveries.ts';

/** The aggregate a batch's events feed, as far as its thresholds go. */
type AggregateEvents = { customerId: string; featureId: number; month: string };

/** What the domain hands in to send threshold events from a batch. */
export interface UsageAlertRules {
  /**
   * The limit the stored customer (undefined: none stored) has for the group's feature; null:
   * none. A superseded version it holds may cost one read, cached by the domain.
   */
  limitOf(group: AggregateEvents, customer: Record<string, unknown> | undefined): Promise<number | null>;
  /** The thresholds a write from `before` to `after` crosses. */
  crossed(limit: number, before: number, after: number): UsageThreshold[];
  /** The stored usage in which a write adding `added` crosses nothing, around `usage`; undefined when it crosses. */
  quietRange(limit: number, usage: number, added: number): { lo: number | null; hi: number | null } | undefined;
  /** The highest threshold at or below `usage`, or null. */
  passed(limit: number, usage: number): number | null;
  /** The outbox event of one crossing. */
  event(group: AggregateEvents, threshold: UsageThreshold, usage: number, limit: number): NewWebhookEventItem;
}

/** Items an aggregate's transaction may add for its thresholds: two markers and two events. */
export const ALERT_ITEMS = 4;

export interface AlertPlan {
  /** The aggregate update's condition, its names and values. */
  condition: string;
  values: Record<string, unknown>;
  /** Markers and events, in this order, and the threshold each marker is of. */
  items: TransactItem[];
  markers: UsageThreshold[];
  /** The usage after the write, when the condition pins it exactly. */
  after: number | undefined;
}

/**
 * How a write of an aggregate whose usage is believed `stored` (undefined: absent) is made:
 * an ADD of `amount`, or a max raised to `amount`. When it crosses a threshold, on the
 * condition that the usage is exactly as believed, with the markers (create: once each) and
 * events of the thresholds not known sent; otherwise on the condition that the usage is where
 * the write crosses none.
 */
export function alertPlan(
  rules: UsageAlertRules,
  aggregate: {
    projectId: number;
    group: AggregateEvents;
    limit: number;
    stored: number | undefined;
    alerted: ReadonlySet<string>;
  },
  amount: number,
  mode: 'add' | 'max' | 'latest',
): AlertPlan {
  const { projectId, group, limit, stored, alerted } = aggregate;
  if (mode === 'latest') {
    // A latest value goes down as well as up: the write that leaves it at or past a threshold
    // sends it, unless the month's marker exists (its create is the once-only condition).
    const reached = rules.crossed(limit, Number.NEGATIVE_INFINITY, amount).filter((t) => !alerted.has(t));
    return { condition: '', values: {}, ...alertItems(rules, projectId, group, limit, reached, amount) };
  }
  const before = stored ?? 0;
  const after = mode === 'add' ? before + amount : Math.max(before, amount);
  const crossing = rules.crossed(limit, before, after).length > 0;
  if (!crossing) {
    // Added to: a range around the usage. Raised to `amount`: the usage already past every
    // threshold at or below it.
    const quiet =
      mode === 'add' ? rules.quietRange(limit, before, amount) : { lo: rules.passed(limit, amount), hi: null };
    if (quiet) return { ...rangeCondition(quiet), items: [], markers: [], after: undefined };
  }
  const markers = rules.crossed(limit, before, after).filter((threshold) => !alerted.has(threshold));
  const { items } = alertItems(rules, projectId, group, limit, markers, after);
  return stored === undefined
    ? { condition: 'attribute_not_exists(#amount)', values: {}, items, markers, after }
    : { condition: '#amount = :alertBefore', values: { ':alertBefore': stored }, items, markers, after };
}

/** The marker (a create: once each) and the outbox event of each threshold in `markers`. */
function alertItems(
  rules: UsageAlertRules,
  projectId: number,
  group: AggregateEvents,
  limit: number,
  markers: UsageThreshold[],
  after: number,
): Pick<AlertPlan, 'items' | 'markers' | 'after'> {
  const { webhookEvent, usageAlert } = db().entities;
  const { customerId, month, featureId } = group;
  const items: TransactItem[] = [
    ...markers.map((threshold) => ({
      Put: usageAlert
        .create({ projectId, customerId, month, featureId, threshold, expiresAt: markerExpiry(month) })
        .params() as NonNullable<TransactItem['Put']>,
    })),
    ...markers.map((threshold) => ({
      Put: webhookEvent.create(rules.event(group, threshold, after, limit)).params() as NonNullable<
        TransactItem['Put']
      >,
    })),
  ];
  return { items, markers, after };
}

/** The condition that the stored usage is in `[lo, hi)` (null: unbounded; absent counts as 0). */
function rangeCondition(quiet: { lo: number | null; hi: number | null }) {
  const parts: string[] = [];
  const values: Record<string, unknown> = {};
  const zeroInside = (quiet.lo === null || quiet.lo <= 0) && (quiet.hi === null || quiet.hi > 0);
  if (quiet.lo !== null) {
    parts.push('#amount >= :alertLo');
    values[':alertLo'] = quiet.lo;
  }
  if (quiet.hi !== null) {
    parts.push('#amount < :alertHi');
    values[':alertHi'] = quiet.hi;
  }
  const range = parts.join(' AND ');
  const condition =
    range === ''
      ? ''
      : zeroInside
        ? `attribute_not_exists(#amount) OR (${range})`
        : `attribute_exists(#amount) AND ${range}`;
  return { condition, values };
}
