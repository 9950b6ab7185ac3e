import type { PlanLayout } from '#db/plan-keys.ts';
import { readFeatureList, readPlanWithFeatures, writeFeatureHead } from '#db/project-parts.ts';
import { getProjectItem, readProjectPartition } from '#db/projects.ts';
import type { FeatureItem, PlanItem, ProjectKey, ProjectPartition, ProjectScope } from '#db/types.ts';
import { planNotFound, projectNotFound } from '../errors.ts';
import { type Assignment, assignmentsByPlan } from '../plans/view.ts';
import { slugPattern } from './slug.ts';

export type { ProjectKey };

/**
 * The caller's project with everything in it, in one Query. Another owner's project is
 * simply not in this owner's key space, so it is a 404 like a missing one. A project whose
 * delete has started is gone too.
 */
export async function loadProject(key: ProjectKey): Promise<ProjectPartition> {
  if (!slugPattern.test(key.slug)) throw projectNotFound(key.slug);
  const partition = await readProjectPartition(key);
  if (!partition || partition.project.deletingAt) throw projectNotFound(key.slug);
  return partition;
}

export function findPlan(partition: ProjectPartition, planId: number): PlanItem {
  const plan = partition.plans.find((p) => p.planId === planId);
  if (!plan) throw planNotFound(planId);
  return plan;
}

/**
 * A project's features, the scope (owner, slug, share id) its items are written with, and its
 * id (for the change log).
 */
export interface ProjectFeatures {
  scope: ProjectScope;
  projectId: number;
  features: FeatureItem[];
  /**
   * The feature deletes the project's feature head counted when the features were read: a
   * write that assigns them commits only while it is still that (shared/db/plan-assignments.ts).
   */
  featureDeletes: number;
}

const scopeOf = ({
  ownerId,
  slug,
  shareId,
  projectId,
  featureDeletes,
}: ProjectScope & { projectId: number; featureDeletes?: number | undefined }) => ({
  scope: { ownerId, slug, shareId },
  projectId,
  featureDeletes: featureDeletes ?? 0,
});

/**
 * revisionGuard with the project's revision read here: read BEFORE the part the write
 * compares with If-Match, so any write in between moves it and fails the guarded write
 * (which then reads again). Without If-Match: no guard and no read.
 */
export async function readRevisionGuard(key: ProjectKey, ifMatch: string | undefined): Promise<number | undefined> {
  if (ifMatch === undefined) return undefined;
  const project = slugPattern.test(key.slug) ? await getProjectItem(key) : undefined;
  if (!project || project.deletingAt) throw projectNotFound(key.slug);
  return project.revision ?? 0;
}

/**
 * A project created before feature heads existed has none: it is read whole (one Query at
 * usual sizes, as every read was before) and given its head, so its next prefix read is one
 * request. A missing project is a 404 here.
 */
async function loadWholeAndHeal(key: ProjectKey): Promise<ProjectPartition> {
  const partition = await loadProject(key);
  await writeFeatureHead(partition.project);
  return partition;
}

/**
 * The project's features: one Query of the feature head and the features, whatever the
 * project's plans and assignments hold. A missing or deleted project is a 404.
 */
export async function loadFeatures(key: ProjectKey): Promise<ProjectFeatures> {
  if (!slugPattern.test(key.slug)) throw projectNotFound(key.slug);
  const list = await readFeatureList(key);
  if (list) return { ...scopeOf(list.head), features: list.features };
  const { project, features } = await loadWholeAndHeal(key);
  return { ...scopeOf(project), features };
}

export interface LoadedPlan extends ProjectFeatures {
  plan: PlanItem;
  /** Where the plan's item is stored: its writes address it there. */
  layout: PlanLayout;
  /** The plan's assignments joined to their features, in assignment order. */
  assignments: Assignment[];
}

/**
 * One plan with its assignments, and the project's features: the feature range and the
 * plan's key prefix (the plan with its assignments), two Queries in one round trip, whatever
 * the project's other plans hold. A missing project or plan is a 404.
 */
export async function loadPlan(key: ProjectKey, planId: number): Promise<LoadedPlan> {
  const { plan, ...part } = await loadPlanPart(key, planId);
  if (!plan) throw planNotFound(planId);
  return { ...part, plan };
}

/**
 * loadPlan, with no plan (and the assignments a cut-short delete left) when it is missing. A
 * project without a feature head is read whole once and given its head (a 404 when it is
 * gone), then its part is read as any other's.
 */
export async function loadPlanPart(
  key: ProjectKey,
  planId: number,
): Promise<ProjectFeatures & { plan: PlanItem | undefined; layout: PlanLayout; assignments: Assignment[] }> {
  if (!slugPattern.test(key.slug)) throw projectNotFound(key.slug);
  let part = await readPlanWithFeatures(key, planId);
  if (!part) {
    await loadWholeAndHeal(key);
    part = await readPlanWithFeatures(key, planId);
    if (!part) throw projectNotFound(key.slug);
  }
  const assignments = assignmentsByPlan({ features: part.features, planFeatures: part.assignments }).get(planId) ?? [];
  return { ...scopeOf(part.head), features: part.features, plan: part.plan, layout: part.layout, assignments };
}
