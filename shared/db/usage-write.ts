import { BUSY, isThrottled, onlyTransient, retryWhileBusy } from './contention.ts';
import { rawTable } from './service.ts';
import { sendTransaction, type TransactItem, type TransactionOutcome } from './transactions.ts';
import { aggregateUpdate } from './usage-aggregate-update.ts';
import { alertPlan } from './usage-alerts.ts';
import { eventIdExpiry, markerExpiry } from './usage-expiry.ts';
import { eventShard, usageKeys } from './usage-item-keys.ts';
import {
  type AggregateEvents,
  type AggregationRules,
  type Chunk,
  type Known,
  type MeteredEvent,
  pack,
  readStored,
  rereadLimits,
} from './usage-packing.ts';

export type { AggregateEvents, AggregationRules, MeteredEvent };

/** Transactions of one batch in flight at once. */
const CONCURRENCY = 4;
/** Conflicts with concurrent senders (and throttling) are retried this long by default. */
export const CONFLICT_BUDGET_MS = 6_000;

type ItemRef =
  | { kind: 'event'; chunk: Chunk; eventId: string }
  | { kind: 'unique'; chunk: Chunk; property: string }
  | { kind: 'aggregate'; chunk: Chunk; sets: Known['stored'] }
  | { kind: 'alert'; chunk: Chunk; threshold: string }
  | { kind: 'outbox' };

/** The transaction's items as things stand (duplicates, known markers and stored values left out). */
function build(table: string, projectId: number, chunks: Chunk[], rules: AggregationRules, nowSeconds: number) {
  const items: TransactItem[] = [];
  const refs: ItemRef[] = [];
  for (const chunk of chunks) {
    const live = chunk.events.filter((e) => !chunk.duplicates.has(e.eventId));
    if (live.length === 0) continue;
    for (const event of live) {
      items.push({
        Put: {
          TableName: table,
          Item: {
            ...usageKeys.event(projectId, event.eventId),
            projectId,
            shard: eventShard(event.eventId),
            eventId: event.eventId,
            expiresAt: eventIdExpiry(event.at, nowSeconds),
            __edb_e__: 'usageevent',
            __edb_v__: '1',
          },
          // An entry past its expiry that TTL has not removed yet is gone all the same.
          ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
          ExpressionAttributeValues: { ':now': nowSeconds },
        },
      });
      refs.push({ kind: 'event', chunk, eventId: event.eventId });
    }
    const { customerId, month, featureId, method } = chunk.group;
    const properties =
      method === 'unique_count'
        ? [...new Set(live.map((e) => e.property as string))].filter((p) => !chunk.known.properties.has(p))
        : [];
    for (const property of properties) {
      items.push({
        Put: {
          TableName: table,
          Item: {
            ...usageKeys.unique(projectId, customerId, month, featureId, property),
            projectId,
            customerId,
            month,
            featureId,
            property,
            expiresAt: markerExpiry(month),
            __edb_e__: 'usageunique',
            __edb_v__: '1',
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
      refs.push({ kind: 'unique', chunk, property });
    }
    const { limit, stored, alerted } = chunk.known;
    const alerts = rules.alerts;
    const alert =
      alerts && limit !== undefined
        ? (amount: number, mode: 'add' | 'max' | 'latest') =>
            alertPlan(alerts, { projectId, group: chunk.group, limit, stored: stored?.amount, alerted }, amount, mode)
        : undefined;
    const written = aggregateUpdate(table, projectId, chunk, live, properties.length, rules, alert);
    if (written) {
      const { update, plan } = written;
      items.push(update);
      // What the aggregate holds once this commits (the batch's next chunks compare with it):
      // max and latest, and a usage with a limit (exact when the write crossed a threshold).
      const values = update.Update?.ExpressionAttributeValues ?? {};
      const sets =
        method === 'max' || method === 'latest'
          ? { amount: values[':amount'], at: values[':at'] }
          : plan
            ? { amount: plan.after ?? (stored?.amount ?? 0) + (values[':amount'] as number), at: undefined }
            : undefined;
      refs.push({ kind: 'aggregate', chunk, sets });
      if (plan) {
        items.push(...plan.items);
        refs.push(...plan.markers.map((threshold) => ({ kind: 'alert' as const, chunk, threshold })));
        refs.push(...plan.markers.map(() => ({ kind: 'outbox' as const })));
      }
    }
  }
  return { items, refs };
}

/** How long a batch keeps retrying transactions that conflicted or were throttled. */
export interface UsageWriteOptions {
  /** Past this (ms from the batch's start), the next conflict is a StorageBusyError (a 503). */
  conflictBudgetMs: number;
}

/**
 * What a cancelled transaction teaches: each failed condition names an item stored already
 * (an event id seen, a property counted, a greater max or later latest). False when none
 * failed: only conflicts or throttling kept it out.
 */
function learn(outcome: TransactionOutcome, refs: ItemRef[]): boolean {
  if (outcome.committed) return false;
  let learned = false;
  outcome.reasons.forEach((reason, i) => {
    const ref = refs[i];
    // An outbox item's condition is only that its id is new: nothing to learn.
    if (reason.code !== 'ConditionalCheckFailed' || !ref || ref.kind === 'outbox') return;
    learned = true;
    if (ref.kind === 'event') ref.chunk.duplicates.add(ref.eventId);
    else if (ref.kind === 'unique') ref.chunk.known.properties.add(ref.property);
    else if (ref.kind === 'alert') ref.chunk.known.alerted.add(ref.threshold);
    else if (ref.kind === 'aggregate') {
      const stored = reason.item ?? {};
      const { known } = ref.chunk;
      known.stored = { amount: stored.amount as number | undefined, at: stored.at as number | undefined };
      // Another limit than decided: written by one that read the customer since, or before.
      const limit = stored.alertLimit;
      if (known.decidedLimit !== undefined && typeof limit === 'number' && limit !== known.decidedLimit) {
        known.replaces = limit;
        known.limitStale = true;
      }
    }
  });
  return learned;
}

/**
 * Writes one transaction's chunks until they are in: each failed condition tells what is
 * stored already, the transaction is built again without it and sent again at once (progress:
 * DynamoDB may report one failed item per cancellation, so a transaction of many duplicates
 * takes as many rounds, bounded by the items it can learn); conflicts with concurrent
 * transactions (and throttling) back off and retry within the budget. All or nothing each
 * time, so a crash or a give-up at any point leaves every event either counted with its id
 * remembered, or neither.
 */
async function commit(
  projectId: number,
  chunks: Chunk[],
  rules: AggregationRules,
  retryUntil: number,
  stopped: () => boolean,
): Promise<void> {
  const { table } = rawTable();
  await retryWhileBusy(
    async () => {
      for (;;) {
        const { items, refs } = build(table, projectId, chunks, rules, Math.floor(Date.now() / 1000));
        if (items.length === 0) return;
        let outcome: TransactionOutcome;
        try {
          outcome = await sendTransaction(items);
        } catch (error) {
          if (isThrottled(error)) return BUSY;
          throw error;
        }
        if (outcome.committed) {
          for (const ref of refs) {
            if (ref.kind === 'unique') ref.chunk.known.properties.add(ref.property);
            else if (ref.kind === 'alert') ref.chunk.known.alerted.add(ref.threshold);
            else if (ref.kind === 'aggregate') {
              if (ref.sets) ref.chunk.known.stored = ref.sets;
              // The aggregate holds the decided limit now.
              delete ref.chunk.known.replaces;
            }
          }
          return;
        }
        if (learn(outcome, refs)) {
          if (rules.alerts) await rereadLimits(projectId, chunks, rules.alerts);
          continue;
        }
        if (onlyTransient(outcome.reasons.map((r) => r.code))) return BUSY;
        throw new Error(`Usage transaction cancelled: ${outcome.reasons.map((r) => r.code).join(', ')}`);
      }
    },
    { until: retryUntil, stopped, what: 'Usage transaction' },
  );
}

export interface ApplyOutcome {
  accepted: number;
  /** Events whose id was stored already (by an earlier or a concurrent batch). */
  duplicates: number;
}

/**
 * Counts a batch's events, each exactly once: every transaction writes the dedupe entries of
 * its events with the one update of each aggregate they feed, so nothing is ever counted
 * without its id remembered, nor remembered without being counted.
 */
export async function applyUsage(
  projectId: number,
  groups: AggregateEvents[],
  rules: AggregationRules,
  options: UsageWriteOptions = { conflictBudgetMs: CONFLICT_BUDGET_MS },
): Promise<ApplyOutcome> {
  const retryUntil = Date.now() + options.conflictBudgetMs;
  const waves = pack(groups, await readStored(projectId, groups, rules.alerts));
  for (const wave of waves) {
    const queue = [...wave];
    // One transaction that gives up stops the batch: the others in flight settle (each
    // commits whole or not at all) before the error is thrown, so nothing of the batch is
    // still writing when its caller hears of it, and no new one starts.
    let failed = false;
    const settled = await Promise.allSettled(
      Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
        for (let chunks = queue.shift(); chunks && !failed; chunks = queue.shift()) {
          try {
            await commit(projectId, chunks, rules, retryUntil, () => failed);
          } catch (error) {
            failed = true;
            throw error;
          }
        }
      }),
    );
    const rejected = settled.find((outcome) => outcome.status === 'rejected');
    if (rejected) throw rejected.reason;
  }
  let accepted = 0;
  let duplicates = 0;
  for (const chunk of waves.flat(2)) {
    duplicates += chunk.duplicates.size;
    accepted += chunk.events.length - chunk.duplicates.size;
  }
  return { accepted, duplicates };
}
