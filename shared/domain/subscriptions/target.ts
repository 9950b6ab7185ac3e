import type { BillingInterval } from '#contract/enums.ts';
import { featureMonthlyPrice, intervalPrice, planMonthlyPrice, toMinorUnits } from '#contract/pricing.ts';
import type { PlanItem, ProjectPartition } from '#db/types.ts';
import type { StoredSubscription } from '../customers/schemas.ts';
import { LOCAL_CHANGE } from '../customers/subscription-status.ts';
import { ConflictError, echo, NotFoundError, planNotFound, ValidationError } from '../errors.ts';
import { versionOf } from '../versions/content.ts';
import { storedVersion } from '../versions/held.ts';
import type { ChangeInput } from './schemas.ts';

/**
 * What a plan change asks for, decided against the subscription as stored (lifecycle.md §2):
 * the plan and its current version, interval, seats, when it takes effect and how Stripe
 * prorates it, and the new price.
 */
export interface ChangeTarget {
  plan: PlanItem;
  version: number;
  interval: BillingInterval;
  seats: number;
  at: 'now' | 'period_end';
  prorationBehavior: 'create_prorations' | 'none';
  /** The new price for the interval, major units. */
  price: number;
  /** A free target (or one whose price rounds to 0): the paid subscription ends at period end. */
  free: boolean;
}

const ENDED = new Set(['canceled', 'incomplete_expired']);

/** The live subscription a change acts on: 409 when there is none (checkout first) or it has ended. */
export function liveSubscription(subscription: StoredSubscription | null): StoredSubscription {
  if (!subscription) {
    throw new ConflictError('This customer has no subscription to change: send them to checkout first.');
  }
  if (ENDED.has(subscription.status)) {
    throw new ConflictError(
      `This customer's subscription is ${subscription.status}: it cannot be changed; start a new one through checkout.`,
    );
  }
  return subscription;
}

/** Per month at its own interval: a year's price is spread over twelve months. */
const perMonth = (price: number, interval: BillingInterval) => (interval === 'year' ? price / 12 : price);

/** What the customer pays per month for what it holds now (its version's price, seats, interval). */
async function heldMonthly(partition: ProjectPartition, subscription: StoredSubscription): Promise<number> {
  if (subscription.customPlan) {
    const byId = new Map(partition.features.map((f) => [f.featureId, f]));
    return (subscription.features ?? []).reduce((sum, chosen) => {
      const feature = byId.get(chosen.featureId);
      return feature ? sum + featureMonthlyPrice(feature, chosen.quantity ?? feature.usageCount) : sum;
    }, 0);
  }
  const plan = partition.plans.find((p) => p.planId === subscription.planId);
  if (plan && (subscription.planVersion === null || versionOf(plan) === subscription.planVersion)) {
    return planMonthlyPrice(plan, subscription.seats);
  }
  if (subscription.planId !== null && subscription.planVersion !== null) {
    const stored = await storedVersion(partition.project.projectId, subscription.planId, subscription.planVersion);
    if (stored) return planMonthlyPrice(stored.content, subscription.seats);
  }
  return plan ? planMonthlyPrice(plan, subscription.seats) : 0;
}

/**
 * The change's target. Defaults: the subscription's interval and (on a per-user plan) seats;
 * `now` with prorations when the new monthly price is higher, else at period end. A change of
 * interval takes effect now (Stripe starts a new billing period with it). `visibleOnly`: a
 * visitor's change names only plans its pricing page shows.
 */
export async function changeTarget(
  partition: ProjectPartition,
  subscription: StoredSubscription,
  input: ChangeInput,
  visibleOnly: boolean,
): Promise<ChangeTarget> {
  const { project } = partition;
  const plan = partition.plans.find((p) => p.planId === input.planId && (!visibleOnly || p.isVisible));
  if (!plan) {
    throw visibleOnly
      ? new NotFoundError(`Plan ${echo(input.planId)} is not on this pricing page.`)
      : planNotFound(input.planId);
  }
  if (input.seats !== undefined && input.seats !== 1 && !plan.isPerUserPricing) {
    throw new ValidationError(`Plan ${plan.planId} is not priced per user, so it takes no seats.`, [
      { path: 'seats', message: 'applies only to per-user plans' },
    ]);
  }
  const currentInterval = subscription.billingInterval ?? 'month';
  const interval = input.billingInterval ?? currentInterval;
  const seats = input.seats ?? (plan.isPerUserPricing ? subscription.seats : 1);
  if (
    plan.planId === subscription.planId &&
    interval === currentInterval &&
    seats === subscription.seats &&
    subscription.pendingPlanId === null
  ) {
    throw new ConflictError(`This customer is already on plan ${plan.planId} with these seats and interval.`);
  }
  const price = plan.isFree ? 0 : intervalPrice(planMonthlyPrice(plan, seats), interval, project);
  const free = toMinorUnits(price, project.currency) === 0;
  const before = perMonth(
    intervalPrice(await heldMonthly(partition, subscription), currentInterval, project),
    currentInterval,
  );
  const upgrade = perMonth(price, interval) > before;
  if (interval !== currentInterval && input.at === 'period_end') {
    throw new ValidationError('A change of billing interval takes effect now: Stripe starts a new period with it.', [
      { path: 'at', message: 'must be "now" when billingInterval changes' },
    ]);
  }
  // A custom plan has no plan to keep until the period ends: it changes at once.
  const at = subscription.customPlan
    ? 'now'
    : (input.at ?? (upgrade || interval !== currentInterval ? 'now' : 'period_end'));
  const prorationBehavior = at === 'now' && (input.prorate ?? true) ? 'create_prorations' : 'none';
  return { plan, version: versionOf(plan), interval, seats, at, prorationBehavior, price, free };
}

/** The subscription once the change is made: at once, or pending until its period ends. */
export function changedSubscription(subscription: StoredSubscription, target: ChangeTarget, nowMs: number) {
  const eventCreated = Math.max(subscription.eventCreated, Math.floor(nowMs / 1000));
  const base = { ...subscription, eventCreated, eventType: LOCAL_CHANGE };
  if (target.free && subscription.source === 'stripe') return { ...base, cancelAtPeriodEnd: true };
  const atOnce = target.at === 'now' || (subscription.source === 'manual' && subscription.currentPeriodEnd === null);
  if (atOnce) {
    return {
      ...base,
      planId: target.plan.planId,
      planVersion: target.version,
      seats: target.seats,
      billingInterval: target.interval,
      pendingPlanId: null,
      pendingVersion: null,
      pendingSeats: null,
      customPlan: false,
      features: null,
    };
  }
  // Until the period ends it holds, and pays for, the seats it has; the new ones come with the
  // plan (held-plan.ts for a manual one, the renewal's webhook for a Stripe-sourced one).
  return {
    ...base,
    pendingPlanId: target.plan.planId,
    pendingVersion: target.version,
    pendingSeats: target.seats,
  };
}
