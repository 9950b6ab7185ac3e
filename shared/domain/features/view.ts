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
