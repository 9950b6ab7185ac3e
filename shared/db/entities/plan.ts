import { type CreateEntityItem, Entity, type EntityItem } from 'electrodb';
import { entityModel } from './model.ts';
import { offerAttributes } from './offer.ts';
import { idAttribute, projectScopeAttributes, projectScopeIndexes, timestamps } from './project-scope.ts';

export const Plan = new Entity({
  model: entityModel('plan'),
  attributes: {
    ...projectScopeAttributes,
    planId: idAttribute,
    ...offerAttributes,
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
