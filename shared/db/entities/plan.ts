import type { CreateEntityItem, EntityItem } from 'electrodb';
import { defineEntity, entityModel } from './model.ts';
import { offerAttributes } from './offer.ts';
import { idAttribute, projectScopeAttributes, projectScopeIndexes, timestamps } from './project-scope.ts';

export const planEntity = defineEntity({
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
    // { i: planFeatureId, m: multiplier, c: createdAt }. One item holds the plan and all it
    // assigns, so reading a plan is one GetItem and a whole project's Query pages by plans.
    assigned: { type: 'any', required: true },
  },
  indexes: projectScopeIndexes(['planId']),
});

/** One assignment as its plan stores it; short names, since a plan holds up to its limit of them in one item. */
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

export type PlanEntity = ReturnType<typeof planEntity>;
export type PlanItem = Omit<EntityItem<PlanEntity>, 'assigned'> & { assigned: AssignedEntries };
export type NewPlanItem = Omit<CreateEntityItem<PlanEntity>, 'assigned'> & { assigned: AssignedEntries };

/** One assignment of a feature to a plan, as read from the plan's `assigned` map. */
export interface PlanAssignment {
  ownerId: string;
  slug: string;
  shareId: string;
  planId: number;
  featureId: number;
  planFeatureId: number;
  multiplier: number;
  createdAt: string;
}
