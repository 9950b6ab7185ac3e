import type { ProjectKey, ProjectPartition } from '#db/types.ts';
import { loadProject } from '../projects/load.ts';
import { type VersionContent, versionOf } from '../versions/content.ts';
import { planContent } from '../versions/current.ts';
import { storedVersion } from '../versions/held.ts';
import type { StoredSubscription } from './schemas.ts';
import { grantsAccess } from './subscription-status.ts';

/**
 * A manual subscription's period-end change (plan, version, seats) takes effect once its
 * period has ended, judged at read (or at once when it has no period end); a Stripe-sourced
 * one waits for its renewal's webhook (shared/domain/webhooks/held-version.ts), never for the
 * clock.
 */
export function settled(stored: StoredSubscription | null, now: number): StoredSubscription | null {
  // Stored before plan changes existed: no pending plan.
  const subscription = stored && { ...stored, pendingPlanId: stored.pendingPlanId ?? null };
  if (!subscription || subscription.pendingVersion === null || subscription.source !== 'manual') return subscription;
  if (subscription.currentPeriodEnd !== null && Date.parse(subscription.currentPeriodEnd) > now) return subscription;
  return {
    ...subscription,
    planId: subscription.pendingPlanId ?? subscription.planId,
    planVersion: subscription.pendingVersion,
    seats: subscription.pendingSeats ?? subscription.seats,
    pendingVersion: null,
    pendingPlanId: null,
    pendingSeats: null,
  };
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
