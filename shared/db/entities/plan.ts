import { type CreateEntityItem, Entity, type EntityItem } from 'electrodb';
import { entityModel, KEY_LAYOUT } from './model.ts';
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
  // Keyed under its assignments' prefix (`$projectData#planFeature_1#planId_<id>`), so one
  // Query reads a plan with its assignments. Plans stored before sit at their old key
  // (legacyPlanSortKey) until their first write, or the operator's `migrate plans`, moves them
  // (shared/db/plan-keys.ts).
  indexes: projectScopeIndexes('plan', ['planId'], 'planFeature'),
});

export type PlanItem = EntityItem<typeof Plan>;
export type NewPlanItem = CreateEntityItem<typeof Plan>;

/** The sort-key prefix every plan had before plans moved under their assignments' prefix. */
export const LEGACY_PLAN_PREFIX = `$projectData#plan_${KEY_LAYOUT}#planId_`;

/** Where plans were keyed before they moved under their assignments' prefix: their own. */
export const legacyPlanSortKey = (planId: number) =>
  `${LEGACY_PLAN_PREFIX}${String(planId).padStart(idAttribute.padding.length, idAttribute.padding.char)}`;
