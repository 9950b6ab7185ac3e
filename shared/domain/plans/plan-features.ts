import { allocateIds } from '#db/ids.ts';
import { insertAssignments, writeAssignment } from '#db/plans.ts';
import type { FeatureItem, ProjectKey } from '#db/types.ts';
import { changeEntries, childChange } from '../changes.ts';
import { featureNotFound, NotFoundError, planNotFound, projectNotFound } from '../errors.ts';
import { loadPlan, readRevisionGuard } from '../projects/load.ts';
import { contentOfRead, pricedStep } from '../versions/bump.ts';
import { checkIfMatch, untilWritten, type Writer } from '../versions.ts';
import { resolveFeatures, uniqueRefs } from './plans.ts';
import type { AddPlanFeaturesView, FeatureRefInput, PlanFeatureDetailView } from './schemas.ts';
import { toPlanFeatureDetailView } from './view.ts';

const notAssigned = (planId: number, featureId: number) =>
  new NotFoundError(`Feature ${featureId} is not assigned to plan ${planId}.`);

/**
 * The plan's part alone at any size: the feature range and the plan's item (with its
 * assignments), two bounded requests in one round trip, so the cost never grows with the
 * project's other plans (docs/decisions.md, "Reads of a part").
 */
export async function listPlanFeatures(key: ProjectKey, planId: number): Promise<PlanFeatureDetailView[]> {
  return (await loadPlan(key, planId)).assignments.map(toPlanFeatureDetailView);
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
  return untilWritten('plan', writer, () => addOnce(key, planId, requested, writer));
}

async function addOnce(
  key: ProjectKey,
  planId: number,
  requested: FeatureRefInput[],
  writer: Writer,
): Promise<AddPlanFeaturesView | 'stale'> {
  const { scope, projectId, features, featureDeletes, assignments, plan } = await loadPlan(key, planId);
  const refs = uniqueRefs(requested);
  resolveFeatures(features, refs);
  const assigned = new Set(assignments.map((a) => a.feature.featureId));
  const toAdd = refs.filter((ref) => !assigned.has(ref.featureId));
  const ids = await allocateIds('planFeature', toAdd.length);
  const createdAt = new Date().toISOString();
  const adding = toAdd.map((ref, i) => ({
    featureId: ref.featureId,
    multiplier: ref.multiplier,
    planFeatureId: ids[i] as number,
  }));
  const records = changeEntries(
    projectId,
    writer,
    adding.map((a) => ({
      resource: { type: 'planFeature' as const, id: a.planFeatureId },
      before: null,
      after: { planId, ...a, createdAt },
    })),
  );
  const byId = new Map(features.map((f) => [f.featureId, f]));
  const joined = [
    ...assignments,
    ...adding.map((a) => ({ feature: byId.get(a.featureId) as FeatureItem, assignment: a })),
  ];
  const step = pricedStep(
    projectId,
    plan,
    contentOfRead(plan, assignments),
    contentOfRead(
      plan,
      joined.filter((a) => a.feature !== undefined),
    ),
    createdAt,
  );
  const result = await insertAssignments(scope, planId, featureDeletes, adding, records, createdAt, step);
  if (result === 'stale') return result;
  if (result === 'project_gone') throw projectNotFound(key.slug);
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

/**
 * The assignment as the plan's part finds it, with the guard of a write with If-Match (read
 * before it); 404 for a missing project, plan or assignment.
 */
async function readAssignment(key: ProjectKey, planId: number, featureId: number, writer: Writer) {
  const guard = await readRevisionGuard(key, writer.ifMatch);
  const { scope, projectId, assignments, plan } = await loadPlan(key, planId);
  const current = assignments.find((a) => a.feature.featureId === featureId);
  if (!current) throw notAssigned(planId, featureId);
  // The version step of setting this assignment's multiplier (null: removing it).
  const stepFor = (multiplier: number | null) => {
    const after = assignments.flatMap((a) =>
      a !== current ? [a] : multiplier === null ? [] : [{ ...a, assignment: { ...a.assignment, multiplier } }],
    );
    const at = new Date().toISOString();
    return pricedStep(projectId, plan, contentOfRead(plan, assignments), contentOfRead(plan, after), at);
  };
  return { guard, projectId, current, scope, stepFor };
}

/** With If-Match, only while it names the assignment as it is (with its feature's details). */
export async function updatePlanFeature(
  key: ProjectKey,
  planId: number,
  featureId: number,
  multiplier: number,
  writer: Writer,
): Promise<PlanFeatureDetailView> {
  return untilWritten('plan feature', writer, async () => {
    const { guard, projectId, current, scope, stepFor } = await readAssignment(key, planId, featureId, writer);
    checkIfMatch(writer.ifMatch, toPlanFeatureDetailView(current));
    if (current.assignment.multiplier === multiplier) return toPlanFeatureDetailView(current);
    const after = { ...current.assignment, multiplier };
    const resource = { type: 'planFeature', id: after.planFeatureId } as const;
    const entry = childChange(projectId, writer, resource, current.assignment, after);
    const outcome = await writeAssignment(scope, current.assignment, multiplier, entry, guard, stepFor(multiplier));
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
  await untilWritten('plan feature', writer, async () => {
    const { guard, projectId, current, scope, stepFor } = await readAssignment(key, planId, featureId, writer);
    checkIfMatch(writer.ifMatch, toPlanFeatureDetailView(current));
    const resource = { type: 'planFeature', id: current.assignment.planFeatureId } as const;
    const entry = childChange(projectId, writer, resource, current.assignment, null);
    const outcome = await writeAssignment(scope, current.assignment, null, entry, guard, stepFor(null));
    if (outcome === 'project_gone') throw projectNotFound(key.slug);
    return outcome;
  });
}
