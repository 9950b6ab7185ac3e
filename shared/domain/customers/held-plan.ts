import type { ProjectKey, ProjectPartition } from '#db/types.ts';
import { loadProject } from '../projects/load.ts';
import { type VersionContent, versionOf } from '../versions/content.ts';
import { planContent } from '../versions/current.ts';
import { storedVersion } from '../versions/held.ts';
import type { StoredSubscription } from './schemas.ts';
import { grantsAccess } from './subscription-status.ts';

const ended = (status: StoredSubscription['status']) => status === 'canceled' || status === 'incomplete_expired';

/**
 * Whether a manual subscription has something that takes effect when its period ends: a
 * pending plan, version or seats (a change or migration at period end), or a cancel at period
 * end of a subscription still live.
 */
export function waitsForPeriodEnd(subscription: StoredSubscription): boolean {
  if (subscription.source !== 'manual') return false;
  return (
    (subscription.pendingVersion ?? null) !== null || (subscription.cancelAtPeriodEnd && !ended(subscription.status))
  );
}

/**
 * A manual subscription's change at period end (plan, version, seats) and its cancel at period
 * end take effect once its period has ended, judged at read; a pending change with no period
 * end takes effect at once, while a cancel with none waits (there is no end to cancel at). A
 * Stripe-sourced one waits for its renewal's or deletion's webhook
 * (shared/domain/webhooks/held-version.ts), never for the clock.
 */
export function settled(stored: StoredSubscription | null, now: number): StoredSubscription | null {
  // Stored before plan changes existed: no pending plan.
  const subscription = stored && { ...stored, pendingPlanId: stored.pendingPlanId ?? null };
  if (!subscription || !waitsForPeriodEnd(subscription)) return subscription;
  const end = subscription.currentPeriodEnd === null ? null : Date.parse(subscription.currentPeriodEnd);
  if (end !== null && end > now) return subscription;
  const changed =
    (subscription.pendingVersion ?? null) === null
      ? subscription
      : {
          ...subscription,
          planId: subscription.pendingPlanId ?? subscription.planId,
          planVersion: subscription.pendingVersion,
          seats: subscription.pendingSeats ?? subscription.seats,
          pendingVersion: null,
          pendingPlanId: null,
          pendingSeats: null,
        };
  return end !== null && changed.cancelAtPeriodEnd && !ended(changed.status)
    ? { ...changed, status: 'canceled' }
    : changed;
}

/** A version of a plan as a customer holds it. */
export interface HeldPlan {
  planId: number;
  version: number;
  content: VersionContent;
}

/**
 * The version whose content a subscription's entitlements come from, when it is not the plan
 * as the (cached) definition has it: a superseded version (stored, immutable, cached for the
 * container's life), or a plan deleted since. A version newer than the cached definition is
 * the plan's current one: the definition is read again, uncached. Undefined when the plan as
 * cached grants it (the common case, no request) or nothing is known of it.
 */
export async function heldPlan(
  key: ProjectKey,
  partition: ProjectPartition,
  subscription: StoredSubscription | null,
): Promise<HeldPlan | undefined> {
  if (!subscription || !grantsAccess(subscription.status) || subscription.customPlan) return undefined;
  const { planId } = subscription;
  if (planId === null) return undefined;
  const plan = partition.plans.find((p) => p.planId === planId);
  const current = plan ? versionOf(plan) : undefined;
  const version = subscription.planVersion ?? current;
  if (version === undefined || version === current) return undefined;
  const stored = await storedVersion(partition.project.projectId, planId, version);
  if (stored) return { planId, version, content: stored.content };
  if (current === undefined || version < current) return undefined;
  const fresh = await loadProject(key);
  const now = fresh.plans.find((p) => p.planId === planId);
  if (!now || versionOf(now) !== version) return undefined;
  return { planId, version, content: planContent(fresh, now) };
}
