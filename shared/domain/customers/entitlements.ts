import type { FeatureItem, ProjectPartition } from '#db/types.ts';
import { featureLimit } from '../features/view.ts';
import { assignmentsByPlan } from '../plans/view.ts';
import { isUnlimited, type VersionFeature, versionLimit } from '../versions/content.ts';
import type { HeldPlan } from './held-plan.ts';
import type { EntitlementsView, EntitlementView, StoredSubscription } from './schemas.ts';
import { grantsAccess, type SubscriptionStatus } from './subscription-status.ts';

/** The project definition an entitlement needs: its features, plans and assignments. */
export type ProjectDefinition = Pick<ProjectPartition, 'features' | 'plans' | 'planFeatures'>;

/** What grants the features: a plan's assignments (feature → multiplier) or a custom plan's quantities. */
type Grant =
  | { kind: 'plan'; planId: number; status: SubscriptionStatus | null; multipliers: Map<number, number> }
  | { kind: 'custom'; status: SubscriptionStatus; quantities: Map<number, number | null> }
  | { kind: 'version'; planId: number; status: SubscriptionStatus; features: Map<number, VersionFeature> }
  | { kind: 'none' };

/** Usage per feature id this month (shared/domain/usage). */
export type Usage = ReadonlyMap<number, number>;

/**
 * What every read of a definition derives from it, computed once per definition object: the
 * project cache hands the same object to every read for up to 10 s, so a warm read does not
 * walk the plans' assignments again.
 */
interface Prepared {
  multipliersByPlan: Map<number, Map<number, number>>;
  featuresInOrder: FeatureItem[];
}
const preparedDefinitions = new WeakMap<ProjectDefinition, Prepared>();

function prepared(definition: ProjectDefinition): Prepared {
  let entry = preparedDefinitions.get(definition);
  if (!entry) {
    const multipliersByPlan = new Map<number, Map<number, number>>();
    for (const [planId, assignments] of assignmentsByPlan(definition)) {
      multipliersByPlan.set(
        planId,
        new Map(assignments.map(({ feature, assignment }) => [feature.featureId, assignment.multiplier])),
      );
    }
    const featuresInOrder = [...definition.features].sort((a, b) => a.featureId - b.featureId);
    entry = { multipliersByPlan, featuresInOrder };
    preparedDefinitions.set(definition, entry);
  }
  return entry;
}

function planGrant(definition: ProjectDefinition, planId: number, status: SubscriptionStatus | null): Grant {
  const multipliers = prepared(definition).multipliersByPlan.get(planId) ?? new Map<number, number>();
  return { kind: 'plan', planId, status, multipliers };
}

/**
 * What grants access now: a subscription that is trialing, active or past due, to a plan
 * that still exists (or a custom plan); else the project's free plan (the visible `isFree`
 * plan with the lowest id) with no status; else nothing.
 */
function currentGrant(definition: ProjectDefinition, subscription: StoredSubscription | null | undefined): Grant {
  if (subscription && grantsAccess(subscription.status)) {
    if (subscription.customPlan) {
      const quantities = new Map((subscription.features ?? []).map((f) => [f.featureId, f.quantity]));
      return { kind: 'custom', status: subscription.status, quantities };
    }
    const { planId } = subscription;
    if (planId !== null && definition.plans.some((plan) => plan.planId === planId)) {
      return planGrant(definition, planId, subscription.status);
    }
  }
  const free = definition.plans.filter((plan) => plan.isFree && plan.isVisible).sort((a, b) => a.planId - b.planId)[0];
  return free ? planGrant(definition, free.planId, null) : { kind: 'none' };
}

/** The first instant of the next UTC month. */
export function nextMonthStart(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}

/** A feature as an entitlement shows it: the project's, or one only a held version still has. */
type Shown = Pick<FeatureItem, 'featureId' | 'name' | 'featureType' | 'isCountable' | 'usageCount' | 'condition'>;

function entitlement(feature: Shown, grant: Grant, usage: number, resetsAt: string): EntitlementView {
  let hasAccess = false;
  let limit: number | null = 0;
  const held = grant.kind === 'version' ? grant.features.get(feature.featureId) : undefined;
  if (held) {
    // What the version granted: its limit, as the feature was in that version.
    hasAccess = true;
    limit = versionLimit(held);
  } else if (grant.kind === 'plan' && grant.multipliers.has(feature.featureId)) {
    hasAccess = true;
    limit = isUnlimited(feature)
      ? null
      : featureLimit(feature.usageCount, grant.multipliers.get(feature.featureId) ?? 1);
  } else if (grant.kind === 'custom' && grant.quantities.has(feature.featureId)) {
    hasAccess = true;
    limit = isUnlimited(feature) ? null : (grant.quantities.get(feature.featureId) ?? feature.usageCount);
  }
  return {
    featureId: feature.featureId,
    name: feature.name,
    featureType: feature.featureType,
    hasAccess,
    limit,
    usage,
    remaining: limit === null ? null : Math.max(0, limit - usage),
    resetsAt,
  };
}

/**
 * The project's features, and those a held version has that the project no longer has
 * (deleted since: the customer keeps them, under the name and type the version has), in
 * feature id order.
 */
function withHeldFeatures(features: FeatureItem[], grant: Grant): Shown[] {
  if (grant.kind !== 'version') return features;
  const known = new Set(features.map((f) => f.featureId));
  const gone = [...grant.features.values()].filter((f) => !known.has(f.featureId));
  if (gone.length === 0) return features;
  return [...features, ...gone].sort((a, b) => a.featureId - b.featureId);
}

/** What grants access: the held version when the subscription holds one, else as currentGrant. */
function grantOf(
  definition: ProjectDefinition,
  subscription: StoredSubscription | null | undefined,
  held: HeldPlan | undefined,
): Grant {
  return held && subscription && grantsAccess(subscription.status)
    ? {
        kind: 'version',
        planId: held.planId,
        status: subscription.status,
        features: new Map(held.content.features.map((f) => [f.featureId, f])),
      }
    : currentGrant(definition, subscription);
}

/** One feature's entitlement, computed alone (a consume needs no other), from the held version if any. */
export function featureEntitlement(
  definition: ProjectDefinition,
  feature: FeatureItem,
  subscription: StoredSubscription | null | undefined,
  usage: number,
  now: Date,
  held?: HeldPlan,
): EntitlementView {
  return entitlement(feature, grantOf(definition, subscription, held), usage, nextMonthStart(now));
}

/** One entitlement per feature of the project (and per feature a held version keeps), in feature id order. */
export function computeEntitlements(
  definition: ProjectDefinition,
  customerId: string,
  subscription: StoredSubscription | null | undefined,
  usage: Usage = new Map(),
  now = new Date(),
  held?: HeldPlan,
): EntitlementsView {
  const grant = grantOf(definition, subscription, held);
  const resetsAt = nextMonthStart(now);
  const features = withHeldFeatures(prepared(definition).featuresInOrder, grant);
  return {
    customerId,
    planId: grant.kind === 'plan' || grant.kind === 'version' ? grant.planId : null,
    status: grant.kind === 'none' ? null : grant.status,
    entitlements: features.map((f) => entitlement(f, grant, usage.get(f.featureId) ?? 0, resetsAt)),
  };
}

/**
 * `allowed`: access, and room for `required` more (default 1 for a countable
 * feature, 0 otherwise) under the limit, if there is one.
 */
export function isAllowed(entitlement: EntitlementView, required: number | undefined, countable: boolean): boolean {
  const need = required ?? (countable ? 1 : 0);
  return entitlement.hasAccess && (entitlement.limit === null || entitlement.usage + need <= entitlement.limit);
}
