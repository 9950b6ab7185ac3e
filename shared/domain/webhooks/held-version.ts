import type { StoredSubscription } from '../customers/schemas.ts';

/** The plan's current version by plan id (undefined: no such plan now). */
export type CurrentVersion = (planId: number) => number | undefined;

const renews = (stored: StoredSubscription, next: StoredSubscription) =>
  next.currentPeriodStart !== null &&
  stored.currentPeriodEnd !== null &&
  Date.parse(next.currentPeriodStart) >= Date.parse(stored.currentPeriodEnd);

/**
 * The version a Stripe event leaves the subscription on (lifecycle.md §1). A pending
 * period-end migration takes effect with the renewal (a period starting at or after the stored
 * period end) and nothing else: within the period the held version and the pending one stay,
 * whatever the metadata says. Otherwise the metadata's `planVersion` (what checkout sold, or
 * what a migration at once set), else the version already held, else (a sale from before
 * versions) the plan's current one, kept from then on.
 */
export function withHeldVersion(
  stored: StoredSubscription | null,
  next: StoredSubscription,
  currentVersion: CurrentVersion,
): StoredSubscription {
  if (next.customPlan || next.planId === null) return { ...next, planVersion: null, pendingVersion: null };
  // A plan change at period end (lifecycle.md §2): Stripe's metadata names the new plan and
  // seats at once; the customer keeps the plan and seats it holds (and pays for) until the
  // renewal, then holds the pending ones.
  const pendingPlanId = stored?.pendingPlanId ?? null;
  if (
    stored !== null &&
    pendingPlanId !== null &&
    stored.stripeSubscriptionId === next.stripeSubscriptionId &&
    next.planId === pendingPlanId
  ) {
    return renews(stored, next)
      ? {
          ...next,
          planId: pendingPlanId,
          planVersion: stored.pendingVersion,
          pendingVersion: null,
          pendingPlanId: null,
          pendingSeats: null,
        }
      : {
          ...next,
          planId: stored.planId,
          planVersion: stored.planVersion,
          seats: stored.seats,
          pendingVersion: stored.pendingVersion,
          pendingPlanId,
          pendingSeats: stored.pendingSeats ?? null,
        };
  }
  const same =
    stored !== null && stored.stripeSubscriptionId === next.stripeSubscriptionId && stored.planId === next.planId;
  if (same && stored.pendingVersion !== null) {
    return renews(stored, next)
      ? { ...next, planVersion: stored.pendingVersion, pendingVersion: null, pendingPlanId: null }
      : { ...next, planVersion: stored.planVersion, pendingVersion: stored.pendingVersion, pendingPlanId: null };
  }
  const held = same ? stored.planVersion : null;
  return {
    ...next,
    planVersion: next.planVersion ?? held ?? currentVersion(next.planId) ?? 1,
    pendingVersion: null,
    pendingPlanId: null,
  };
}
