import { allocateIds } from '#db/ids.ts';
import { deleteAssignment, insertAssignments, updateAssignment } from '#db/plans.ts';
import type { ProjectKey } from '#db/types.ts';
import { featureNotFound, NotFoundError, planNotFound, projectNotFound } from '../errors.ts';
import { findPlan, loadProject } from '../projects/load.ts';
import { slugPattern } from '../projects/slug.ts';
import { resolveFeatures, uniqueRefs } from './plans.ts';
import type { AddPlanFeaturesView, FeatureRefInput, PlanFeatureDetailView } from './schemas.ts';
import { assignmentsByPlan, toPlanFeatureDetailView } from './view.ts';

const notAssigned = (planId: number, featureId: number) =>
  new NotFoundError(`Feature ${featureId} is not assigned to plan ${planId}.`);

async function currentAssignments(key: ProjectKey, planId: number) {
  const partition = await loadProject(key);
  findPlan(partition, planId);
  return { partition, assignments: assignmentsByPlan(partition).get(planId) ?? [] };
}

export async function listPlanFeatures(key: ProjectKey, planId: number): Promise<PlanFeatureDetailView[]> {
  const { assignments } = await currentAssignments(key, planId);
  return assignments.map(toPlanFeatureDetailView);
}

/**
 * Assigns features; those already assigned (before or during this request) are skipped
 * and counted, not errors. Answers with every current assignment of the plan.
 */
export async function addPlanFeatures(
  key: ProjectKey,
  planId: number,
  requested: FeatureRefInput[],
): Promise<AddPlanFeaturesView> {
  const { partition, assignments } = await currentAssignments(key, planId);
  const refs = uniqueRefs(requested);
  resolveFeatures(partition, refs);
  const assigned = new Set(assignments.map((a) => a.feature.featureId));
  const toAdd = refs.filter((ref) => !assigned.has(ref.featureId));
  const ids = await allocateIds('planFeature', toAdd.length);
  const { ownerId, slug, shareId } = partition.project;
  const result = await insertAssignments(
    { ownerId, slug, shareId },
    planId,
    toAdd.map((ref, i) => ({ featureId: ref.featureId, multiplier: ref.multiplier, planFeatureId: ids[i] as number })),
  );
  if (result === 'plan_missing') throw planNotFound(planId);
  if ('missingFeatureId' in result) throw featureNotFound(result.missingFeatureId);
  const after = await loadProject(key);
  return {
    added: result.added.length,
    skipped: refs.length - toAdd.length + result.alreadyAssigned.length,
    features: (assignmentsByPlan(after).get(planId) ?? []).map(toPlanFeatureDetailView),
  };
}

export async function updatePlanFeature(
  key: ProjectKey,
  planId: number,
  featureId: number,
  multiplier: number,
): Promise<PlanFeatureDetailView> {
  const { assignments } = await currentAssignments(key, planId);
  const current = assignments.find((a) => a.feature.featureId === featureId);
  if (!current) throw notAssigned(planId, featureId);
  const updated = await updateAssignment(key, planId, featureId, multiplier);
  if (updated === 'not_found') throw notAssigned(planId, featureId);
  return toPlanFeatureDetailView({ assignment: updated, feature: current.feature });
}

/** Removes the assignment only; the feature stays in the project. */
export async function removePlanFeature(key: ProjectKey, planId: number, featureId: number): Promise<void> {
  if (!slugPattern.test(key.slug)) throw projectNotFound(key.slug);
  if ((await deleteAssignment(key, planId, featureId)) === 'deleted') return;
  await currentAssignments(key, planId); // a missing project or plan is the better answer
  throw notAssigned(planId, featureId);
}
