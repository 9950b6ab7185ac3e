import type { CreateEntityItem, EntityItem } from 'electrodb';
import type { ApiKey } from './entities/api-key.ts';
import type { Feature } from './entities/feature.ts';
import type { Plan } from './entities/plan.ts';
import type { PlanFeature } from './entities/plan-feature.ts';
import type { Project } from './entities/project.ts';

export type ProjectItem = EntityItem<typeof Project>;
export type FeatureItem = EntityItem<typeof Feature>;
export type PlanItem = EntityItem<typeof Plan>;
export type PlanFeatureItem = EntityItem<typeof PlanFeature>;
export type ApiKeyItem = EntityItem<typeof ApiKey>;

export type NewProjectItem = CreateEntityItem<typeof Project>;
export type NewFeatureItem = CreateEntityItem<typeof Feature>;
export type NewPlanItem = CreateEntityItem<typeof Plan>;
export type NewPlanFeatureItem = CreateEntityItem<typeof PlanFeature>;
export type NewApiKeyItem = CreateEntityItem<typeof ApiKey>;

/** The key of a project's partition: an owner's project by slug. */
export interface ProjectKey {
  ownerId: string;
  slug: string;
}

/** What every child item of a project carries besides its own attributes. */
export interface ProjectScope extends ProjectKey {
  shareId: string;
}

/** Everything stored for one project, as one Query returns it. */
export interface ProjectPartition {
  project: ProjectItem;
  features: FeatureItem[];
  plans: PlanItem[];
  planFeatures: PlanFeatureItem[];
}
