import { readFeatureList, readPlanWithFeatures } from '#db/project-parts.ts';
import { getProjectItem, readProjectPartition } from '#db/projects.ts';
import type { FeatureItem, PlanItem, ProjectKey, ProjectPartition, ProjectScope } from '#db/types.ts';
import { planNotFound, projectNotFound } from '../errors.ts';
import { type Assignment, assignmentsByPlan } from '../plans/view.ts';
import { slugPattern } from './slug.ts';

export type { ProjectKey };

/**
 * The caller's project with everything in it, in one Query. Another owner's project is
 * simply not in this owner's key space, so it is a 404 like a missing one.
 */
export const loadProject = (key: ProjectKey): Promise<ProjectPartition> => found(key, readProjectPartition);

/** What `read` finds of the project, else its 404; a path that is no slug is not read. */
async function found<T>(key: ProjectKey, read: (key: ProjectKey) => Promise<T | undefined>): Promise<T> {
  const result = slugPattern.test(key.slug) ? await read(key) : undefined;
  if (!result) throw projectNotFound(key.slug);
  return result;
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

const scopeOf = (head: ProjectScope & { projectId: number; featureDeletes: number }) => ({
  scope: { ownerId: head.ownerId, slug: head.slug, shareId: head.shareId },
  projectId: head.projectId,
  featureDeletes: head.featureDeletes,
});

/**
 * revisionGuard with the project's revision read here: read BEFORE the part the write
 * compares with If-Match, so any write in between moves it and fails the guarded write
 * (which then reads again). Without If-Match: no guard and no read.
 */
export async function readRevisionGuard(key: ProjectKey, ifMatch: string | undefined): Promise<number | undefined> {
  if (ifMatch === undefined) return undefined;
  return (await found(key, getProjectItem)).revision;
}

/**
 * The project's features: one Query of the feature head and the features, whatever the
 * project's plans hold. A missing or deleted project is a 404.
 */
export async function loadFeatures(key: ProjectKey): Promise<ProjectFeatures> {
  const list = await found(key, readFeatureList);
  return { ...scopeOf(list.head), features: list.features };
}

export interface LoadedPlan extends ProjectFeatures {
  plan: PlanItem;
  /** The plan's assignments joined to their features, in assignment order. */
  assignments: Assignment[];
}

/**
 * One plan with its assignments, and the project's features: the feature range's Query and
 * the plan's GetItem in one round trip, whatever the project's other plans hold. A missing
 * project or plan is a 404.
 */
export async function loadPlan(key: ProjectKey, planId: number): Promise<LoadedPlan> {
  const part = await found(key, (key) => readPlanWithFeatures(key, planId));
  if (!part.plan) throw planNotFound(planId);
  const assignments = assignmentsByPlan({ features: part.features, planFeatures: part.assignments }).get(planId) ?? [];
  return { ...scopeOf(part.head), features: part.features, plan: part.plan, assignments };
}
