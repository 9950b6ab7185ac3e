import type { CreateEntityItem, EntityItem } from 'electrodb';
import { defineEntity, entityModel } from './model.ts';
import { idAttribute } from './project-scope.ts';

/**
 * A plan's priced content at one version, frozen when a priced write moves the plan past it
 * (or deletes the plan): what its customers keep (lifecycle.md §1). The current version is
 * the plan item itself, so only superseded versions are stored, and each is written once and
 * never changed. They live beside the project's customers, in the partition keyed by the
 * project id, not in the project's own partition: a project read (GET project, share, the
 * customer reads' cache) never carries them, and the project sweep deletes them with one
 * Query of their prefix (shared/db/plan-versions.ts).
 */
export const planVersionEntity = defineEntity({
  model: entityModel('planVersion'),
  attributes: {
    projectId: idAttribute,
    planId: idAttribute,
    version: idAttribute,
    // The priced content (shared/domain/versions/content.ts), as the domain shapes it.
    content: { type: 'any', required: true },
    // When this version became the plan's current one.
    createdAt: { type: 'string', required: true, readOnly: true },
  },
  indexes: {
    byPlan: {
      pk: { field: 'pk', composite: ['projectId'], casing: 'none' },
      sk: { field: 'sk', composite: ['planId', 'version'], casing: 'none' },
    },
  },
});

export type PlanVersionItem = EntityItem<ReturnType<typeof planVersionEntity>>;
export type NewPlanVersionItem = CreateEntityItem<ReturnType<typeof planVersionEntity>>;
