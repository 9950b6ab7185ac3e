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
    // The plan's version of lifecycle.md §1 (absent: 1): priced writes add 1, and freeze the
    // content they supersede (shared/db/plan-versions.ts). `pricedAt`: when it became current.
    pricedVersion: { type: 'number' },
    pricedAt: { type: 'string' },
    ...timestamps,
    // The plan's assignments, stored in the plan (shared/db/plan-assignments.ts): featureId →
    // { i: planFeatureId, m: multiplier, c: createdAt }. Absent on plans written before.
    assigned: { type: 'any' },
  },
  // Keyed under its assignments' prefix (`$projectData#planFeature_1#planId_<id>`), so one
  // Query reads a plan with its assignments. Plans stored before sit at their old key
  // (legacyPlanSortKey) until their first write, or the operator's `migrate plans`, moves them
  // (shared/db/plan-keys.ts).
  indexes: projectScopeIndexes('plan', ['planId'], 'planFeature'),
});

/** One assignment as its plan stores it; the short names keep a full plan near 10 KB. */
export interface AssignedEntry {
  /** planFeatureId */
  i: number;
  /** multiplier */
  m: number;
  /** createdAt */
  c: string;
}

/** A plan's assignments by feature id (as a string: a DynamoDB map's key). */
export type AssignedEntries = Record<string, AssignedEntry>;

export type PlanItem = Omit<EntityItem<typeof Plan>, 'assigned'> & { assigned?: AssignedEntries };
export type NewPlanItem = Omit<CreateEntityItem<typeof Plan>, 'assigned'> & { assigned?: AssignedEntries };

/** The sort-key prefix every plan had before plans moved under their assignments' prefix. */
export const LEGACY_PLAN_PREFIX = `$projectData#plan_${KEY_LAYOUT}#planId_`;

/** Where plans were keyed before they moved under their assignments' prefix: their own. */
export const legacyPlanSortKey = (planId: number) =>
  `${LEGACY_PLAN_PREFIX}${String(planId).padStart(idAttribute.padding.length, idAttribute.padding.char)}`;
