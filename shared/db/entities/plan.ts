import { type CreateEntityItem, Entity, type EntityItem } from 'electrodb';
import { idAttribute, projectScopeAttributes, projectScopeIndexes, timestamps } from './project-scope.ts';

export const Plan = new Entity({
  model: { entity: 'plan', version: '1', service: 'pricing' },
  attributes: {
    ...projectScopeAttributes,
    planId: idAttribute,
    name: { type: 'string', required: true },
    description: { type: 'string', required: true },
    basePrice: { type: 'number', required: true },
    isPopular: { type: 'boolean', required: true },
    isVisible: { type: 'boolean', required: true },
    isFree: { type: 'boolean', required: true },
    freemiumDay: { type: 'number', required: true },
    isPerUserPricing: { type: 'boolean', required: true },
    perUserMultiplier: { type: 'number', required: true },
    version: { type: 'number', required: true, default: 1 },
    ...timestamps,
  },
  indexes: projectScopeIndexes(['planId']),
});

export type PlanItem = EntityItem<typeof Plan>;
export type NewPlanItem = CreateEntityItem<typeof Plan>;
