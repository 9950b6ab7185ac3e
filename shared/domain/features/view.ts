import type { FeatureItem } from '#db/types.ts';
import type { FeatureView } from './schemas.ts';

export function countableData(item: FeatureItem): FeatureView['countableData'] {
  if (!item.isCountable) return null;
  return {
    usageCount: item.usageCount,
    condition: item.condition,
    countPrice: item.countPrice,
    eventAggregationMethod: item.eventAggregationMethod,
  };
}

export function toFeatureView(item: FeatureItem): FeatureView {
  return {
    id: item.featureId,
    name: item.name,
    description: item.description,
    basePrice: item.basePrice,
    featureType: item.featureType,
    isCountable: item.isCountable,
    countableData: countableData(item),
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}

/** Limits are usageCount × multiplier; rounding keeps float noise (1000 × 1.1) out. */
export const featureLimit = (usageCount: number, multiplier: number) => Math.round(usageCount * multiplier * 1e6) / 1e6;
