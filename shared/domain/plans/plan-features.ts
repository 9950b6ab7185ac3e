import { allocateIds } from '#db/ids.ts';
import { insertAssignments, writeAssignment } from '#db/plans.ts';
import type { ProjectKey } from '#db/types.ts';
import { changeEntries, childChange } from '../changes.ts';
import { featureNotFound, NotFoundError, planNotFound, projectNotFound } from '../errors.ts';
import { findPlan, loadProject } from '../projects/load.ts';
import { checkIfMatch, guardOf, untilWritten, type Writer } from '../versions.ts';
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
 * Assigns features, each with its change-log entry; those already assigned (before or during
 * this request) are skipped and counted, not errors. Answers with every current assignment of the plan.
 */
export async function addPlanFeatures(
  key: ProjectKey,
  planId: number,
  requested: FeatureRefInput[],
  writer: Writer,
): Promise<AddPlanFeaturesView> {
  const { partition, assignments } = await currentAssignments(key, planId);
  const refs = uniqueRefs(requested);
  resolveFeatures(partition, refs);
  const assigned = new Set(assignments.map((a) => a.feature.featureId));
  const toAdd = refs.filter((ref) => !assigned.has(ref.featureId));
  const ids = await allocateIds('planFeature', toAdd.length);
  const { ownerId, slug, shareId, projectId } = partition.project;
  const createdAt = new Date().toISOString();
  const adding = toAdd.map((ref, i) => ({
    featureId: ref.featureId,
    multiplier: ref.multiplier,
    planFeatureId: ids[i] as number,
  }));
  const entries = await changeEntries(
    projectId,
    writer,
    adding.map((a) => ({
      resource: { type: 'planFeature' as const, id: a.planFeatureId },
      before: null,
      after: { planId, ...a, createdAt },
    })),
  );
  const result = await insertAssignments({ ownerId, slug, shareId }, planId, adding, entries);
  if (result === 'project_gone') throw projectNotFound(key.slug);
  if (result === 'plan_missing') throw planNotFound(planId);
  if ('missingFeatureId' in result) throw featureNotFound(result.missingFeatureId);
  const after = await loadProject(key);
  return {
    added: result.added.length,
    skipped: refs.length - toAdd.length + result.alreadyAssigned.length,
    features: (assignmentsByPlan(after).get(planId) ?? []).map(toPlanFeatureDetailView),
  };
}

/** The assignment as one consistent read finds it, with its project; 404 for any of them missing. */
async function readAssignment(key: ProjectKey, planId: number, featureId: number) {
  const { partition, assignments } = await currentAssignments(key, planId);
  const current = assignments.find((a) => a.feature.featureId === featureId);
  if (!current) throw notAssigned(planId, featureId);
  const { project } = partition;
  return { project, current, scope: { ...key, shareId: project.shareId } };
}

/** With If-Match, only while it names the assignment as it is (with its feature's details). */
export async function updatePlanFeature(
  key: ProjectKey,
  planId: number,
  featureId: number,
  multiplier: number,
  writer: Writer,
): Promise<PlanFeatureDetailView> {
  return untilWritten('plan feature', async () => {
    const { project, current, scope } = await readAssignment(key, planId, featureId);
    checkIfMatch(writer.ifMatch, toPlanFeatureDetailView(current));
    if (current.assignment.multiplier === multiplier) return toPlanFeatureDetailView(current);
    const after = { ...current.assignment, multiplier };
    const resource = { type: 'planFeature', id: after.planFeatureId } as const;
    const entry = await childChange(project.projectId, writer, resource, current.assignment, after);
    const outcome = await writeAssignment(
      scope,
      current.assignment,
      multiplier,
      entry,
      guardOf(writer, project.revision),
    );
    if (outcome === 'project_gone') throw projectNotFound(key.slug);
    return outcome === 'written' ? toPlanFeatureDetailView({ assignment: after, feature: current.feature }) : 'stale';
  });
}

/** Removes the assignment only; the feature stays in the project. */
export async function removePlanFeature(
  key: ProjectKey,
  planId: number,
  featureId: number,
  writer: Writer,
): Promise<void> {
  await untilWritten('plan feature', async () => {
    const { project, current, scope } = await readAssignment(key, planId, featureId);
    checkIfMatch(writer.ifMatch, toPlanFeatureDetailView(current));
    const resource = { type: 'planFeature', id: current.assignment.planFeatureId } as const;
    const entry = await childChange(project.projectId, writer, resource, current.assignment, null);
    const outcome = await writeAssignment(scope, current.assignment, null, entry, guardOf(writer, project.revision));
    if (outcome === 'project_gone') throw projectNotFound(key.slug);
    return outcome;
  });
}
