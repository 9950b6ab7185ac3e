import type { CreateEntityItem, EntityItem } from 'electrodb';
import { aggregationMethods, featureTypes } from '#contract/enums.ts';
import { defineEntity, entityModel } from './model.ts';
import { offerAttributes } from './offer.ts';
import { idAttribute, projectScopeAttributes, projectScopeIndexes, timestamps } from './project-scope.ts';

export const featureEntity = defineEntity({
  model: entityModel('feature'),
  attributes: {
    ...projectScopeAttributes,
    featureId: idAttribute,
    ...offerAttributes,
    featureType: { type: featureTypes, required: true },
    isCountable: { type: 'boolean', required: true },
    // Countable data is kept even while isCountable is false, so turning it back on
    // restores what was configured.
    usageCount: { type: 'number', required: true },
    condition: { type: 'string', required: true },
    countPrice: { type: 'number', required: true },
    eventAggregationMethod: { type: aggregationMethods, required: true },
    // Each update adds 1 and names the version it read, so the change log's `before` is exactly
    // what it replaced.
    version: { type: 'number', required: true, default: 1 },
    ...timestamps,
  },
  indexes: projectScopeIndexes(['featureId']),
});

export type FeatureItem = EntityItem<ReturnType<typeof featureEntity>>;
export type NewFeatureItem = CreateEntityItem<ReturnType<typeof featureEntity>>;
