import { type CreateEntityItem, Entity, type EntityItem } from 'electrodb';
import { entityModel } from './model.ts';
import { idAttribute, projectScopeAttributes, projectScopeIndexes } from './project-scope.ts';

/**
 * The assignment of a feature to a plan. Its key is (plan, feature), so a create with
 * attribute_not_exists makes the pair unique however many requests race. Feature details
 * are not copied here: reads join against the feature items of the same partition, so a
 * feature edit never has to fan out.
 */
export const PlanFeature = new Entity({
  model: entityModel('planFeature'),
  attributes: {
    ...projectScopeAttributes,
    planId: idAttribute,
    featureId: idAttribute,
    planFeatureId: { type: 'number', required: true, readOnly: true },
    multiplier: { type: 'number', required: true },
    createdAt: { type: 'string', required: true, readOnly: true },
  },
  indexes: projectScopeIndexes('planFeature', ['planId', 'featureId']),
});

export type PlanFeatureItem = EntityItem<typeof PlanFeature>;
export type NewPlanFeatureItem = CreateEntityItem<typeof PlanFeature>;
