/**
 * The storage types the domain reads and writes. Item types are declared beside their
 * entity (shared/db/entities/*); this module gathers them with the project's key shapes and
 * the shape of a whole project's read.
 */
import type { PlanAssignment } from './entities/plan.ts';
import type { ProjectItem } from './entities/project.ts';
import type { PricingService } from './service.ts';

export type { ApiKeyItem, NewApiKeyItem } from './entities/api-key.ts';
export type { CustomerItem, NewCustomerItem } from './entities/customer.ts';
export type { FeatureItem, NewFeatureItem } from './entities/feature.ts';
export type { NewPlanItem, PlanAssignment, PlanItem } from './entities/plan.ts';
export type { NewProjectItem, ProjectItem } from './entities/project.ts';

/** The key of a project's partition: an owner's project by slug. */
export interface ProjectKey {
  ownerId: string;
  slug: string;
}

/** What every child item of a project carries besides its own attributes. */
export interface ProjectScope extends ProjectKey {
  shareId: string;
}

/**
 * What one Query of a project's collection returns: ElectroDB keys the items by entity
 * alias, and gives every member entity a list (empty when it has none).
 */
type ProjectData = Awaited<ReturnType<ReturnType<PricingService['collections']['projectData']>['go']>>['data'];
/** The entities of the `projectData` collection: the project and everything in it. */
export type ProjectEntity = keyof ProjectData;
type ChildAlias = Exclude<ProjectEntity, 'project' | 'featureHead'>;

/**
 * Everything stored for one project, as one Query returns it: the project item, the items of
 * every other entity of the `projectData` collection under its alias plus "s" (`features`,
 * `plans`), and the plans' assignments (`planFeatures`). An entity that joins the collection
 * appears here without an edit; the feature head (the project item's stand-in for the part
 * reads of shared/db/project-parts.ts) says nothing the project item does not, and is left out.
 */
export type ProjectPartition = { project: ProjectItem } & { [A in ChildAlias as `${A}s`]: ProjectData[A] } & {
  planFeatures: PlanAssignment[];
};
