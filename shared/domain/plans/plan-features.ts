import { allocateIds } from '#db/ids.ts';
import { deleteAssignment, insertAssignments, updateAssignment } from '#db/plans.ts';
import type { ProjectKey } from '#db/types.ts';
import { featureNotFound, NotFoundError, planNotFound, projectNotFound } from '../errors.ts';
import { findPlan, loadPlan, loadSmallProject } from '../projects/load.ts';
import { slugPattern } from '../projects/slug.ts';
import { resolveFeatures, uniqueRefs } from './plans.ts';
import type { AddPlanFeaturesView, FeatureRefInput, PlanFeatureDetailView } from './schemas.ts';
import { assignmentsByPlan, toPlanFeatureDetailView } from './view.ts';

const notAssigned = (planId: number, featureId: number) =>
  new NotFoundError(`Feature ${featureId} is not assigned to plan ${planId}.`);

/**
 * One DynamoDB request while the project fits in one Query page (about 1 MB): the whole
 * project. Past that, the plan's part alone (the feature range, the plan, its assignments:
 * three requests in one round trip) instead of the rest of the pages, so the cost stops
 * growing with the project's other plans (docs/decisions.md, "Reads of a part").
 */
export async function listPlanFeatures(key: ProjectKey, planId: number): Promise<PlanFeatureDetailView[]> {
  const small = await loadSmallProject(key);
  if (small === 'larger') return (await loadPlan(key, planId)).assignments.map(toPlanFeatureDetailView);
  findPlan(small, planId);
  return (assignmentsByPlan(small).get(planId) ?? []).map(toPlanFeatureDetailView);
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
  const { scope, features, assignments } = await loadPlan(key, planId);
  const refs = uniqueRefs(requested);
  resolveFeatures(features, refs);
  const assigned = new Set(assignments.map((a) => a.feature.featureId));
  const toAdd = refs.filter((ref) => !assigned.has(ref.featureId));
  const ids = await allocateIds('planFeature', toAdd.length);
  const result = await insertAssignments(
    scope,
    planId,
    toAdd.map((ref, i) => ({ featureId: ref.featureId, multiplier: ref.multiplier, planFeatureId: ids[i] as number })),
  );
  if (result === 'plan_missing') throw planNotFound(planId);
  if ('missingFeatureId' in result) throw featureNotFound(result.missingFeatureId);
  // Every current assignment, also those a concurrent request added.
  const after = await loadPlan(key, planId);
  return {
    added: result.added.length,
    skipped: refs.length - toAdd.length + result.alreadyAssigned.length,
    features: after.assignments.map(toPlanFeatureDetailView),
  };
}

export async function updatePlanFeature(
  key: ProjectKey,
  planId: number,
  featureId: number,
  multiplier: number,
): Promise<PlanFeatureDetailView> {
  const { assignments } = await loadPlan(key, planId);
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
  await loadPlan(key, planId); // a missing project or plan is the better answer
  throw notAssigned(planId, featureId);
}
