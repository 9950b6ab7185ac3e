import { readProjectPartition } from '#db/projects.ts';
import type { PlanItem, ProjectKey, ProjectPartition } from '#db/types.ts';
import { planNotFound, projectNotFound } from '../errors.ts';
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
