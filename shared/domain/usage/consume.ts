import { isStorageBusy } from '#db/contention.ts';
import type { CustomerItem, FeatureItem, ProjectKey, ProjectPartition } from '#db/types.ts';
import { type ConsumeState, type ConsumeTarget, readConsumeState, writeConsume } from '#db/usage-consume.ts';
import { isCustomerId } from '../customers/customer-id.ts';
import { featureEntitlement } from '../customers/entitlements.ts';
import { heldPlan, settled } from '../customers/held-plan.ts';
import { forgetProjectCached } from '../customers/project-cache.ts';
import { storedSubscription } from '../customers/store.ts';
import { featureNotFound, projectNotFound, UnavailableError, ValidationError } from '../errors.ts';
import { aggregationRules, roundedSum } from './aggregation.ts';
import { crossed, quietRange, usageAlerts } from './alerts.ts';
import { onCachedProject, timeProblem, utcMonth } from './record.ts';
import type { ConsumeBody, ConsumeResultView } from './schemas.ts';

/** Rounds of a consume that learned something changed (a concurrent write) before it is a 503. */
const MAX_ROUNDS = 25;
/** Aggregates whose last seen state an instance keeps. */
const MAX_KNOWN = 10_000;

const invalid = (path: string, message: string) =>
  new ValidationError(`Invalid request: ${path} ${message}.`, [{ path, message }]);

/** The feature a consume may take from, or the 404 or 400 that says why not. */
function consumable(partition: ProjectPartition, featureId: number, amount: number): FeatureItem {
  const feature = partition.features.find((f) => f.featureId === featureId);
  if (!feature) throw featureNotFound(featureId);
  if (!feature.isCountable)
    throw invalid('featureId', `names feature ${featureId}, which is not countable: it takes no usage`);
  const method = feature.eventAggregationMethod;
  if (method !== 'count' && method !== 'sum') {
    throw invalid(
      'featureId',
      `names feature ${featureId}, which aggregates by ${method}: only count and sum features can be consumed`,
    );
  }
  if (method === 'count' && amount !== 1)
    throw invalid('amount', `must be 1, since feature ${featureId} counts events`);
  return feature;
}

/**
 * Check and consume in one call, exact under any concurrency: the limit is checked against
 * the customer and usage this instance last saw, and the write commits only while the
 * customer is still that one and the usage still leaves room (writeConsume). The first
 * write asks for the usage exactly as seen, so the answer knows the usage after it without
 * a read; once a write found it changed (another instance consumed), the next asks only for
 * room under the limit, so concurrent callers commit one after the other instead of
 * invalidating each other, and the answer reads the usage after its commit. A refusal is
 * decided only on what was read or learned in this call, and writes nothing. Within one
 * instance, consumes of one aggregate take turns; instances (Lambda containers) meet in
 * DynamoDB's conditions.
 */
export function createConsumer() {
  const known = new Map<string, ConsumeState>();
  const turns = new Map<string, Promise<unknown>>();

  async function inTurn<T>(id: string, work: () => Promise<T>): Promise<T> {
    const mine = (turns.get(id) ?? Promise.resolve()).then(work);
    const settled = mine.catch(() => undefined);
    turns.set(id, settled);
    try {
      return await mine;
    } finally {
      if (turns.get(id) === settled) turns.delete(id);
    }
  }

  function remember(id: string, state: ConsumeState): void {
    known.delete(id);
    if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value as string);
    known.set(id, { customer: state.customer, usage: state.usage, alertLimit: state.alertLimit });
  }

  async function consumeIn(
    key: ProjectKey,
    partition: ProjectPartition,
    customerId: string,
    featureId: number,
    body: ConsumeBody,
    now: number,
  ): Promise<ConsumeResultView> {
    const amount = body.amount ?? 1;
    const feature = consumable(partition, featureId, amount);
    const at = body.timestamp === undefined ? now : Date.parse(body.timestamp);
    const late = timeProblem(at, now);
    if (late) throw invalid('timestamp', late);
    const { project } = partition;
    const target: ConsumeTarget = {
      project,
      customerId,
      feature: { featureId, method: feature.eventAggregationMethod },
      month: utcMonth(at),
      eventId: body.eventId,
      at,
    };
    const added = aggregationRules.added(feature.eventAggregationMethod as 'count' | 'sum', [
      { eventId: body.eventId, value: amount, property: undefined, at },
    ]);
    const id = `${project.projectId}\u0000${customerId}\u0000${featureId}\u0000${target.feature.method}\u0000${target.month}`;
    // The limit comes from the version the customer holds, as the entitlements read has it: a
    // superseded version is read once per container and kept, so a warm consume stays one request.
    const view = async (state: ConsumeState, usage = state.usage ?? 0) => {
      const subscription = settled(storedSubscription(state.customer ?? undefined), now);
      const held = await heldPlan(key, partition, subscription);
      return featureEntitlement(partition, feature, subscription, usage, new Date(at), held);
    };

    return inTurn(id, async () => {
      let state = known.get(id);
      // Whether `state` was read or learned in this call: only then may it refuse.
      let fresh = false;
      // Whether the next write asks for the usage exactly as seen (until one finds it changed).
      let exactly = true;
      // Thresholds found sent already this month: their marker exists.
      const alerted = new Set<string>();
      for (let round = 0; round < MAX_ROUNDS; round++) {
        if (!state) {
          const read = await readConsumeState(target);
          remember(id, read);
          if (read.counted) return { allowed: true, entitlement: await view(read) };
          state = read;
          fresh = true;
        }
        const entitlement = await view(state);
        const after = roundedSum((state.usage ?? 0) + added);
        const fits = entitlement.hasAccess && (entitlement.limit === null || after <= entitlement.limit);
        if (!fits) {
          // What this instance saw may be behind (a plan change, a deleted customer, a resend).
          if (!fresh) {
            state = undefined;
            continue;
          }
          return { allowed: false, entitlement };
        }
        const max = entitlement.limit === null ? null : roundedSum(entitlement.limit - added);
        // A write that would cross an alert threshold asks for the usage exactly as seen, so
        // its event tells the usage after it; any other is kept out of the thresholds' reach.
        const before = state.usage ?? 0;
        const quiet = quietRange(entitlement.limit, before, added);
        const exact = exactly || quiet === undefined;
        const alerts = exact
          ? usageAlerts(
              project.projectId,
              crossed(entitlement.limit, before, after).filter((threshold) => !alerted.has(threshold)),
              { customerId, featureId, usage: after, limit: entitlement.limit, month: target.month },
            )
          : [];
        const condition = exact ? { exactly: true as const } : { max, within: quiet };
        // The limit the thresholds are decided on (0: none), stored with the usage: the
        // transaction pins the customer it comes from, so it may replace the one seen stored.
        const decidedLimit = entitlement.limit !== null && entitlement.limit > 0 ? entitlement.limit : 0;
        const outcome = await writeConsume(target, state, added, condition, decidedLimit, alerts);
        if (outcome === 'committed') {
          const stored = exact
            ? { customer: state.customer, usage: after, alertLimit: decidedLimit }
            : await readConsumeState(target);
          remember(id, stored);
          return { allowed: true, entitlement: await view(stored) };
        }
        if (outcome.projectGone) {
          forgetProjectCached(key);
          throw projectNotFound(key.slug);
        }
        // Any change of the usage found: from now on ask only for room (a usage read past
        // 2^53 is a rounded double, which no exact condition ever matches).
        if (outcome.usage !== undefined || outcome.usageUnknown) exactly = false;
        for (const threshold of outcome.alerted) alerted.add(threshold);
        if (outcome.duplicate || outcome.usageUnknown) {
          // Counted already (the answer shows the entitlement as it is now), or the usage
          // changed to something only a read tells.
          state = undefined;
          continue;
        }
        state = {
          customer: outcome.customer === undefined ? state.customer : (outcome.customer as CustomerItem | null),
          usage: outcome.usage === undefined ? state.usage : outcome.usage,
          alertLimit: outcome.alertLimit === undefined ? state.alertLimit : outcome.alertLimit,
        };
        remember(id, state);
        // Learned from a failed condition: enough to write again, not to refuse (DynamoDB may
        // name one failed condition of several, and the event id may be counted already).
        fresh = false;
      }
      throw new UnavailableError('Concurrent writes of this customer and feature kept changing it; retry the call.');
    });
  }

  return {
    /** POST …/customers/{customerId}/entitlements/{featureId}/consume. */
    async consume(
      key: ProjectKey,
      customerId: string,
      featureId: number,
      body: ConsumeBody,
      options: { cacheTtlMs: number },
      now = Date.now(),
    ): Promise<ConsumeResultView> {
      if (!isCustomerId(customerId)) {
        throw invalid('customerId', 'must be 1-128 characters of letters, digits and . _ : @ -');
      }
      try {
        return await onCachedProject(key, options.cacheTtlMs, (partition) =>
          consumeIn(key, partition, customerId, featureId, body, now),
        );
      } catch (error) {
        if (!isStorageBusy(error)) throw error;
        throw new UnavailableError('Concurrent writes of this customer and feature kept this call out; retry it.');
      }
    },
  };
}

export const { consume } = createConsumer();
