import type { FeatureItem, PlanItem } from '#db/types.ts';
import type { Assignment } from '../plans/view.ts';
import type { ShareView } from './schemas.ts';

type CupricePlan = ShareView['pricingPlans'][number];
type CupriceFeature = CupricePlan['planFeatures'][number]['feature'];

/**
 * The Cuprice-compatible plans of a share answer: what Cuprice's React SDK reads
 * (`pricingPlans`, each with `order`, `isVisible` and `planFeatures` carrying the feature's
 * details), so a pricing page written for Cuprice renders from this service. `plans` are the
 * visible ones in id order, so `order` is the index. One details object per feature is shared
 * by every plan that assigns it: a project at the limits serialises each many times but
 * builds it once.
 */
export function cupricePlans(
  plans: PlanItem[],
  features: FeatureItem[],
  countable: Map<number, CupriceFeature['countableData']>,
  assignmentsOf: (planId: number) => Assignment[],
): CupricePlan[] {
  const details = new Map<number, CupriceFeature>();
  for (const feature of features) {
    details.set(feature.featureId, {
      id: feature.featureId,
      name: feature.name,
      description: feature.description,
      featureType: feature.featureType,
      basePrice: feature.basePrice,
      countableData: countable.get(feature.featureId) ?? null,
    });
  }
  return plans.map((plan, order) => ({
    id: plan.planId,
    name: plan.name,
    description: plan.description,
    order,
    isVisible: true,
    isPopular: plan.isPopular,
    isFree: plan.isFree,
    basePrice: plan.basePrice,
    freemiumDay: plan.freemiumDay,
    isPerUserPricing: plan.isPerUserPricing,
    perUserMultiplier: plan.perUserMultiplier,
    planFeatures: assignmentsOf(plan.planId).map(({ assignment, feature }) => ({
      id: assignment.planFeatureId,
      multiplier: assignment.multiplier,
      feature: details.get(feature.featureId) as CupriceFeature,
    })),
  }));
}
