import { allocateIds } from '#db/ids.ts';
import { insertAssignments, writeAssignment } from '#db/plans.ts';
import type { FeatureItem, PlanAssignment, ProjectKey } from '#db/types.ts';
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
  return untilWritten('plan', writer, async () => {
    const { scope, projectId, features, featureDeletes, assignments, plan } = await loadPlan(key, planId);
    const refs = uniqueRefs(requested);
    const byId = resolveFeatures(features, refs);
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
    const joined = [
      ...assignments,
      ...adding.map((a) => ({ feature: byId.get(a.featureId) as FeatureItem, assignment: a })),
    ];
    const step = pricedStep(projectId, plan, contentOfRead(plan, assignments), contentOfRead(plan, joined), createdAt);
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
  });
}

/**
 * The assignment as the plan's part finds it, checked against If-Match (with the guard read
 * before it), and `write` to set its multiplier (null: remove it) with its change-log entry and
 * the plan's version step; 404 for a missing project, plan or assignment.
 */
async function readAssignment(key: ProjectKey, planId: number, featureId: number, writer: Writer) {
  const guard = await readRevisionGuard(key, writer.ifMatch);
  const { scope, projectId, assignments, plan } = await loadPlan(key, planId);
  const current = assignments.find((a) => a.feature.featureId === featureId);
  if (!current) throw notAssigned(planId, featureId);
  checkIfMatch(writer.ifMatch, toPlanFeatureDetailView(current));
  const resource = { type: 'planFeature', id: current.assignment.planFeatureId } as const;
  const write = async (after: PlanAssignment | null) => {
    const entry = childChange(projectId, writer, resource, current.assignment, after);
    const joined = assignments.flatMap((a) => (a !== current ? [a] : after ? [{ ...a, assignment: after }] : []));
    const at = new Date().toISOString();
    const step = pricedStep(projectId, plan, contentOfRead(plan, assignments), contentOfRead(plan, joined), at);
    const outcome = await writeAssignment(scope, current.assignment, after?.multiplier ?? null, entry, guard, step);
    if (outcome === 'project_gone') throw projectNotFound(key.slug);
    return outcome;
  };
  return { current, write };
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
    const { current, write } = await readAssignment(key, planId, featureId, writer);
    if (current.assignment.multiplier === multiplier) return toPlanFeatureDetailView(current);
    const assignment = { ...current.assignment, multiplier };
    return (await write(assignment)) === 'written' ? toPlanFeatureDetailView({ ...current, assignment }) : 'stale';
  });
}

/** Removes the assignment only; the feature stays in the project. */
export async function removePlanFeature(
  key: ProjectKey,
  planId: number,
  featureId: number,
  writer: Writer,
): Promise<void> {
  await untilWritten('plan feature', writer, async () =>
    (await readAssignment(key, planId, featureId, writer)).write(null),
  );
}
