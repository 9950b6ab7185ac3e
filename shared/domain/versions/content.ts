import type { FeatureType } from '#contract/enums.ts';
import type { FeatureItem, PlanItem } from '#db/types.ts';
import { featureLimit } from '../features/view.ts';

/**
 * A plan's priced content (lifecycle.md §1): what a customer who holds a version of the plan
 * bought. Names are kept so that a feature deleted since still shows under the name it had;
 * they are presentation, so a change of a name alone moves no version (see `pricedKey`).
 */
export interface VersionFeature {
  featureId: number;
  name: string;
  featureType: FeatureType;
  isCountable: boolean;
  usageCount: number;
  condition: string;
  multiplier: number;
}

export interface VersionContent {
  basePrice: number;
  isFree: boolean;
  freemiumDay: number;
  isPerUserPricing: boolean;
  perUserMultiplier: number;
  /** In feature id order. */
  features: VersionFeature[];
}

/** The plan's version number: every plan starts at 1. */
export const versionOf = (plan: { pricedVersion?: number | undefined }): number => plan.pricedVersion ?? 1;

type PricedPlan = Pick<PlanItem, 'basePrice' | 'isFree' | 'freemiumDay' | 'isPerUserPricing' | 'perUserMultiplier'>;

/** The content of a plan as it is now, from the plan and its assignments joined to their features. */
export function contentOfRead(
  plan: PricedPlan,
  assigned: readonly { feature: FeatureItem; assignment: { multiplier: number } }[],
): VersionContent {
  return {
    basePrice: plan.basePrice,
    isFree: plan.isFree,
    freemiumDay: plan.freemiumDay,
    isPerUserPricing: plan.isPerUserPricing,
    perUserMultiplier: plan.perUserMultiplier,
    features: assigned
      .map(({ feature, assignment }) => ({
        featureId: feature.featureId,
        name: feature.name,
        featureType: feature.featureType,
        isCountable: feature.isCountable,
        usageCount: feature.usageCount,
        condition: feature.condition,
        multiplier: assignment.multiplier,
      }))
      .sort((a, b) => a.featureId - b.featureId),
  };
}

/**
 * What decides whether a write is priced: two contents with the same key grant the same
 * features, limits and price. Names are left out (presentation), and so are a feature's
 * usageCount and condition while it is not countable (they cannot change what it grants).
 */
export function pricedKey(content: VersionContent): string {
  const { features, ...plan } = content;
  return JSON.stringify([
    plan.basePrice,
    plan.isFree,
    plan.freemiumDay,
    plan.isPerUserPricing,
    plan.perUserMultiplier,
    features.map((f) => [
      f.featureId,
      f.featureType,
      f.isCountable,
      f.isCountable ? f.usageCount : 0,
      f.isCountable ? f.condition : '',
      f.multiplier,
    ]),
  ]);
}

export const isPricedChange = (before: VersionContent, after: VersionContent) => pricedKey(before) !== pricedKey(after);

/** A feature grants without limit when it is not countable, or its condition says Unlimited (any case). */
export const isUnlimited = (feature: Pick<VersionFeature, 'isCountable' | 'condition'>) =>
  !feature.isCountable || feature.condition.trim().toLowerCase() === 'unlimited';

/** The limit a version grants for one of its features: `usageCount × multiplier`, or null when unlimited. */
export const versionLimit = (feature: VersionFeature): number | null =>
  isUnlimited(feature) ? null : featureLimit(feature.usageCount, feature.multiplier);

/** A version as the API shows it (the versions list, `plan.version_created`), without its holders. */
export const versionFields = (version: number, createdAt: string, content: VersionContent) => ({
  version,
  createdAt,
  basePrice: content.basePrice,
  isFree: content.isFree,
  freemiumDay: content.freemiumDay,
  isPerUserPricing: content.isPerUserPricing,
  perUserMultiplier: content.perUserMultiplier,
  features: content.features.map((f) => ({
    featureId: f.featureId,
    name: f.name,
    multiplier: f.multiplier,
    limit: versionLimit(f),
  })),
});
