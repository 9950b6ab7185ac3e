import type { FeatureItem, PlanAssignment, PlanItem, ProjectPartition } from '#db/types.ts';
import { versionOf } from '../versions/content.ts';
import type { PlanFeatureDetailView, PlanFeatureView, PlanView } from './schemas.ts';

export interface Assignment {
  assignment: PlanAssignment;
  feature: FeatureItem;
}

/**
 * Joins a partition's assignments to their features once. An assignment whose feature or
 * plan is gone (a delete's sweep not yet finished) is never shown.
 */
export function assignmentsByPlan(
  partition: Pick<ProjectPartition, 'features' | 'planFeatures'>,
): Map<number, Assignment[]> {
  const features = new Map(partition.features.map((f) => [f.featureId, f]));
  const byPlan = new Map<number, Assignment[]>();
  for (const assignment of partition.planFeatures) {
    const feature = features.get(assignment.featureId);
    if (!feature) continue;
    const list = byPlan.get(assignment.planId) ?? [];
    list.push({ assignment, feature });
    byPlan.set(assignment.planId, list);
  }
  for (const list of byPlan.values()) list.sort((a, b) => a.assignment.planFeatureId - b.assignment.planFeatureId);
  return byPlan;
}

/** A feature as a plan's assignments show it. */
const featureSummary = ({ featureId, name, featureType, basePrice }: FeatureItem) => ({
  id: featureId,
  name,
  featureType,
  basePrice,
});

export function toPlanFeatureView({ assignment, feature }: Assignment): PlanFeatureView {
  return { id: assignment.planFeatureId, multiplier: assignment.multiplier, feature: featureSummary(feature) };
}

export function toPlanFeatureDetailView({ assignment, feature }: Assignment): PlanFeatureDetailView {
  const view = toPlanFeatureView({ assignment, feature });
  return { ...view, feature: { ...view.feature, description: feature.description, isCountable: feature.isCountable } };
}

export function toPlanView(plan: Omit<PlanItem, 'assigned'>, assignments: Assignment[]): PlanView {
  return {
    id: plan.planId,
    name: plan.name,
    description: plan.description,
    basePrice: plan.basePrice,
    isPopular: plan.isPopular,
    isVisible: plan.isVisible,
    isFree: plan.isFree,
    freemiumDay: plan.freemiumDay,
    isPerUserPricing: plan.isPerUserPricing,
    perUserMultiplier: plan.perUserMultiplier,
    version: versionOf(plan),
    planFeatures: assignments.map(toPlanFeatureView),
    createdAt: plan.createdAt,
    updatedAt: plan.updatedAt,
  };
}

/**
 * Every plan's view, as toPlanView makes them, in one pass over the assignments: one feature
 * summary per feature shared by all the views that show it, and no joined pair per
 * assignment (the same JSON as toPlanView's, with one object per assignment instead of three).
 */
export function planViews(partition: ProjectPartition): PlanView[] {
  const summaries = new Map(partition.features.map((feature) => [feature.featureId, featureSummary(feature)]));
  const byPlan = new Map<number, PlanFeatureView[]>();
  for (const assignment of partition.planFeatures) {
    const feature = summaries.get(assignment.featureId);
    if (!feature) continue;
    const view = { id: assignment.planFeatureId, multiplier: assignment.multiplier, feature };
    const list = byPlan.get(assignment.planId);
    if (list) list.push(view);
    else byPlan.set(assignment.planId, [view]);
  }
  return [...partition.plans]
    .sort((a, b) => a.planId - b.planId)
    .map((plan) => {
      const planFeatures = (byPlan.get(plan.planId) ?? []).sort((a, b) => a.id - b.id);
      return { ...toPlanView(plan, []), planFeatures };
    });
}
