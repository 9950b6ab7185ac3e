/**
 * The storage types the domain reads and writes. Item types are declared beside their
 * entity (shared/db/entities/*); this module gathers them with the project's key shapes.
 */
export type { ApiKeyItem, NewApiKeyItem } from './entities/api-key.ts';
export type { CustomerItem, NewCustomerItem } from './entities/customer.ts';
export type { FeatureItem, NewFeatureItem } from './entities/feature.ts';
export type { NewPlanItem, PlanItem } from './entities/plan.ts';
export type { NewPlanFeatureItem, PlanFeatureItem } from './entities/plan-feature.ts';
export type { NewProjectItem, ProjectItem } from './entities/project.ts';
export type { ProjectEntity, ProjectPartition } from './projects.ts';

/** The key of a project's partition: an owner's project by slug. */
export interface ProjectKey {
  ownerId: string;
  slug: string;
}

/** What every child item of a project carries besides its own attributes. */
export interface ProjectScope extends ProjectKey {
  shareId: string;
}
