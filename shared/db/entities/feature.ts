import { type CreateEntityItem, Entity, type EntityItem } from 'electrodb';
import { aggregationMethods, featureTypes } from '#contract/enums.ts';
import { idAttribute, projectScopeAttributes, projectScopeIndexes, timestamps } from './project-scope.ts';

export const Feature = new Entity({
  model: { entity: 'feature', version: '1', service: 'pricing' },
  attributes: {
    ...projectScopeAttributes,
    featureId: idAttribute,
    name: { type: 'string', required: true },
    description: { type: 'string', required: true },
    basePrice: { type: 'number', required: true },
    featureType: { type: featureTypes, required: true },
    isCountable: { type: 'boolean', required: true },
    // Countable data is kept even while isCountable is false, so turning it back on
    // restores what was configured.
    usageCount: { type: 'number', required: true },
    condition: { type: 'string', required: true },
    countPrice: { type: 'number', required: true },
    eventAggregationMethod: { type: aggregationMethods, required: true },
    ...timestamps,
  },
  indexes: projectScopeIndexes(['featureId']),
});

export type FeatureItem = EntityItem<typeof Feature>;
export type NewFeatureItem = CreateEntityItem<typeof Feature>;
