import type { AggregationMethod } from '#contract/enums.ts';
import { getAll } from './batch.ts';
import { USAGE_THRESHOLDS } from './entities/usage.ts';
import { TRANSACTION_ITEMS } from './transactions.ts';
import { ALERT_ITEMS, type UsageAlertRules } from './usage-alerts.ts';
import { aggregateSk, alertSk, customerPartition, customerSk, uniqueSk } from './usage-item-keys.ts';

// How a batch of usage events is cut into transactions: what is stored already is read
// first, then each aggregate's events are cut into chunks and the chunks packed into
// transactions of at most 100 items.

/** One usage event as storage sees it: validated, with its timestamp in epoch ms. */
export interface MeteredEvent {
  eventId: string;
  value: number | undefined;
  property: string | undefined;
  at: number;
}

/** The events of one batch for one aggregate (customer × feature × UTC month), in received order. */
export interface AggregateEvents {
  customerId: string;
  featureId: number;
  /** `YYYY-MM`, UTC. */
  month: string;
  method: AggregationMethod;
  events: MeteredEvent[];
}

/**
 * The domain's aggregation rules (shared/domain/usage/aggregation.ts), handed in: what an
 * aggregate makes of the events a transaction counts. Storage keeps each event counted
 * once and applies the result with the condition that keeps concurrent writers right.
 */
export interface AggregationRules {
  /** count and sum: what the aggregate gains from these events. */
  added(method: 'count' | 'sum', events: readonly MeteredEvent[]): number;
  /** max: these events' candidate, stored when above the stored amount. */
  max(events: readonly MeteredEvent[]): number;
  /**
   * latest: the event these events leave as the latest. It replaces the stored one unless
   * that one is later: on a tie the later write wins, as the later received does among these.
   */
  latest(events: readonly MeteredEvent[]): MeteredEvent;
  /** Usage thresholds: sent for every aggregate when given. */
  alerts?: UsageAlertRules;
}

/** What is stored already of one aggregate, as far as the batch knows: shared by its chunks. */
export interface Known {
  /** unique_count: properties whose marker exists already. */
  properties: Set<string>;
  /** max and latest (and those with a limit): the aggregate as stored. */
  stored?: { amount: number | undefined; at: number | undefined };
  /** With alerts: the customer's limit for the feature, when positive. */
  limit?: number;
  /** Thresholds whose marker was found existing (sent already this month). */
  alerted: Set<string>;
  /**
   * With alerts: the limit the thresholds are decided on (0: none). Every write of the
   * aggregate stores it and asks that the aggregate hold it (or nothing, or `replaces`), so
   * all the writes of an aggregate decide on one limit at a time: one that read the customer
   * before a plan change and writes after a write that read it after fails, reads the
   * customer again and decides anew.
   */
  decidedLimit?: number;
  /** A limit the aggregate holds that this write, having read the customer since, may replace. */
  replaces?: number;
  /** The aggregate holds another limit than decided: the customer is read again before the next try. */
  limitStale?: boolean;
}

/** A slice of one aggregate's events, written in one transaction with one update of it. */
export interface Chunk {
  group: AggregateEvents;
  events: MeteredEvent[];
  /** Its transaction items as planned: never fewer than it will write (knowledge only removes items). */
  items: number;
  /** Event ids found already stored (counted by an earlier batch or a concurrent one). */
  duplicates: Set<string>;
  known: Known;
}

/**
 * What the batch's conditions will find, read first (one BatchGetItem per 100 keys, at once):
 * the stored max and latest aggregates and the markers of its unique_count properties. A max
 * the batch does not beat, a latest it does not follow or a property counted already is then
 * left out of its transaction instead of failing it (a failed condition cancels the whole
 * transaction, which costs as much as a committed one), and the transactions are planned with
 * the items they will really write. A concurrent write can still fail one; the transaction
 * then learns and retries as ever.
 */
export async function readStored(
  projectId: number,
  groups: AggregateEvents[],
  alerts?: UsageAlertRules,
): Promise<Map<AggregateEvents, Known>> {
  const known = new Map<AggregateEvents, Known>();
  const found = new Map<string, (item: Record<string, unknown>) => void>();
  const customers = new Map<string, Record<string, unknown> | undefined>();
  const limited: AggregateEvents[] = [];
  for (const group of groups) {
    const knowledge: Known = { properties: new Set(), alerted: new Set() };
    known.set(group, knowledge);
    const { customerId, month, featureId, method } = group;
    const storedAggregate = (item: Record<string, unknown>) => {
      knowledge.stored = { amount: item.amount as number | undefined, at: item.at as number | undefined };
      if (typeof item.alertLimit === 'number') knowledge.replaces = item.alertLimit;
    };
    if (method === 'max' || method === 'latest') {
      found.set(aggregateSk(customerId, month, { featureId, method }), storedAggregate);
    } else if (method === 'unique_count') {
      for (const property of new Set(group.events.map((e) => e.property as string))) {
        found.set(uniqueSk(customerId, month, featureId, property), () => knowledge.properties.add(property));
      }
    }
    // With a limit, the usage before the write decides which thresholds it crosses.
    if (alerts) {
      limited.push(group);
      found.set(aggregateSk(customerId, month, { featureId, method }), storedAggregate);
      customers.set(customerId, undefined);
      found.set(customerSk(customerId), (item) => customers.set(customerId, item));
    }
    // A latest value sends a threshold whenever it is at or past it and the month's marker
    // is absent: the markers are read, so a value that stays past one costs no cancelled write.
    if (alerts && method === 'latest') {
      for (const threshold of USAGE_THRESHOLDS) {
        found.set(alertSk(customerId, month, featureId, threshold), () => knowledge.alerted.add(threshold));
      }
    }
  }
  const pk = customerPartition(projectId);
  // Of a customer, its subscription decides the limit.
  const items = await getAll(
    [...found.keys()].map((sk) => ({ pk, sk })),
    customers.size > 0 ? ['sk', 'amount', 'at', 'alertLimit', 'subscription'] : ['sk', 'amount', 'at'],
  );
  for (const item of items) found.get(item.sk as string)?.(item);
  if (alerts) {
    const limits = await Promise.all(limited.map((group) => alerts.limitOf(group, customers.get(group.customerId))));
    for (const [i, group] of limited.entries()) decideLimit(known.get(group) as Known, limits[i]);
  }
  return known;
}

/** What the customer's limit, read at once with the aggregate (or since), makes of the aggregate's. */
function decideLimit(knowledge: Known, limit: number | null | undefined): void {
  const positive = typeof limit === 'number' && limit > 0 ? limit : undefined;
  if (positive === undefined) delete knowledge.limit;
  else knowledge.limit = positive;
  knowledge.decidedLimit = positive ?? 0;
  // The limit stored is the one decided, or one this read supersedes.
  if (knowledge.replaces === knowledge.decidedLimit) delete knowledge.replaces;
  knowledge.limitStale = false;
}

/**
 * The customers of the chunks whose aggregate holds another limit than they decided on, read
 * again (strongly consistent, one BatchGetItem), and the limit decided anew: the aggregate's
 * may then be replaced, as one decided before this read.
 */
export async function rereadLimits(projectId: number, chunks: Chunk[], alerts: UsageAlertRules): Promise<void> {
  const stale = chunks.filter((chunk) => chunk.known.limitStale);
  if (stale.length === 0) return;
  const pk = customerPartition(projectId);
  const ids = [...new Set(stale.map((chunk) => chunk.group.customerId))];
  const items = await getAll(
    ids.map((customerId) => ({ pk, sk: customerSk(customerId) })),
    ['sk', 'subscription'],
  );
  const bySk = new Map(items.map((item) => [item.sk as string, item]));
  const limits = await Promise.all(
    stale.map((chunk) => alerts.limitOf(chunk.group, bySk.get(customerSk(chunk.group.customerId)))),
  );
  for (const [i, chunk] of stale.entries()) decideLimit(chunk.known, limits[i]);
}

/**
 * An aggregate's events cut into chunks of at most 100 items with its update: one per event
 * (its dedupe entry) and one per property whose marker is not known to exist (unique_count).
 */
function chunksOf(group: AggregateEvents, known: Known): Chunk[] {
  const chunks: Chunk[] = [];
  let events: MeteredEvent[] = [];
  let markers = new Set<string>();
  // An aggregate with a limit may add its threshold markers and events.
  // With alerts, even with no limit now: a limit read again may bring thresholds.
  const reserved = 1 + (known.decidedLimit === undefined ? 0 : ALERT_ITEMS);
  const close = () => {
    chunks.push({ group, events, items: reserved + events.length + markers.size, duplicates: new Set(), known });
    events = [];
    markers = new Set();
  };
  for (const event of group.events) {
    const marker = (chunk: Set<string>) =>
      group.method === 'unique_count' &&
      !known.properties.has(event.property as string) &&
      !chunk.has(event.property as string);
    if (reserved + events.length + markers.size + 1 + (marker(markers) ? 1 : 0) > TRANSACTION_ITEMS) close();
    if (marker(markers)) markers.add(event.property as string);
    events.push(event);
  }
  if (events.length > 0) close();
  return chunks;
}

/**
 * Chunks in waves: the k-th chunk of every aggregate is in wave k, so no two transactions in
 * flight at once write the same aggregate (they would cancel each other, and DynamoDB takes
 * one operation per item in a transaction). Within a wave, chunks are packed first-fit
 * decreasing into transactions of at most 100 items, by the items they will write.
 */
export function pack(groups: AggregateEvents[], known: Map<AggregateEvents, Known>): Chunk[][][] {
  const waves: Chunk[][] = [];
  for (const group of groups) {
    chunksOf(group, known.get(group) ?? { properties: new Set(), alerted: new Set() }).forEach((chunk, wave) => {
      waves[wave] = [...(waves[wave] ?? []), chunk];
    });
  }
  return waves.map((chunks) => {
    const transactions: { items: number; chunks: Chunk[] }[] = [];
    for (const chunk of [...chunks].sort((a, b) => b.items - a.items)) {
      const fit = transactions.find((t) => t.items + chunk.items <= TRANSACTION_ITEMS);
      if (fit) {
        fit.items += chunk.items;
        fit.chunks.push(chunk);
      } else transactions.push({ items: chunk.items, chunks: [chunk] });
    }
    return transactions.map((t) => t.chunks);
  });
}
