import { limits } from '#contract/limits.ts';
import { allocateIds } from '#db/ids.ts';
import { deletePlan as deletePlanItems, insertPlan, type NewAssignment, updatePlanItem } from '#db/plans.ts';
import type { FeatureItem, PlanItem, ProjectKey, ProjectScope } from '#db/types.ts';
import { changeEntry, childChange, childFields } from '../changes.ts';
import { countRefused, featureNotFound, planNotFound, projectNotFound } from '../errors.ts';
import { definedOnly } from '../fields.ts';
import { loadFeatures, loadPlan, loadProject, readRevisionGuard } from '../projects/load.ts';
import { contentOfRead, frozenOf, pricedStep } from '../versions/bump.ts';
import { checkIfMatch, untilWritten, type Writer } from '../versions.ts';
import {
  type CreatePlanInput,
  type FeatureRefInput,
  type PlanView,
  planDefaults,
  type UpdatePlanInput,
  updatablePlanFields,
} from './schemas.ts';
import { type Assignment, planViews, toPlanView } from './view.ts';

const COPY_SUFFIX = ' (Copy)';

export async function listPlans(key: ProjectKey): Promise<PlanView[]> {
  return planViews(await loadProject(key));
}

/** Duplicate feature ids in one request count once (the first one wins). */
export function uniqueRefs(refs: FeatureRefInput[]): FeatureRefInput[] {
  const seen = new Set<number>();
  return refs.filter((ref) => !seen.has(ref.featureId) && seen.add(ref.featureId));
}

/** The features the refs name, or a 404 for the first one this project does not have. */
export function resolveFeatures(projectFeatures: FeatureItem[], refs: FeatureRefInput[]): Map<number, FeatureItem> {
  const features = new Map(projectFeatures.map((f) => [f.featureId, f]));
  const missing = refs.find((ref) => !features.has(ref.featureId));
  if (missing) throw featureNotFound(missing.featureId);
  return features;
}

/** A free plan costs 0, whatever basePrice says. */
const priced = <T extends { isFree: boolean; basePrice: number }>(plan: T): T =>
  plan.isFree ? { ...plan, basePrice: 0 } : plan;

export const copyName = (name: string) =>
  `${name.slice(0, limits.nameMax - COPY_SUFFIX.length).trimEnd()}${COPY_SUFFIX}`;

/**
 * Writes a new plan with its assignments (ids allocated here) and returns its view, or 'stale'
 * when a feature was deleted since the features were read (read again). Shared by create and
 * duplicate.
 */
async function writeNewPlan(
  { scope, projectId, featureDeletes }: { scope: ProjectScope; projectId: number; featureDeletes: number },
  fields: Omit<
    PlanItem,
    'ownerId' | 'slug' | 'shareId' | 'planId' | 'version' | 'createdAt' | 'updatedAt' | 'assigned'
  >,
  refs: FeatureRefInput[],
  features: Map<number, FeatureItem>,
  writer: Writer,
): Promise<PlanView | 'stale'> {
  const [[planId], planFeatureIds] = await Promise.all([allocateIds('plan'), allocateIds('planFeature', refs.length)]);
  if (planId === undefined) throw new Error('No plan id allocated');
  const now = new Date().toISOString();
  const plan = { ...priced(fields), ...scope, planId, createdAt: now, updatedAt: now };
  const assignments: NewAssignment[] = refs.map((ref, i) => ({
    featureId: ref.featureId,
    multiplier: ref.multiplier,
    planFeatureId: planFeatureIds[i] as number,
  }));
  // One entry for the plan and what it assigns.
  const entry = changeEntry(projectId, writer, { type: 'plan', id: planId }, null, {
    ...childFields({ ...plan, version: 1 }),
    planFeatures: assignments.map((a) => ({ id: a.planFeatureId, featureId: a.featureId, multiplier: a.multiplier })),
  });
  const outcome = await insertPlan(scope, plan, assignments, limits.plansPerProject, entry, featureDeletes);
  if (outcome === 'features_changed') return 'stale';
  if (outcome !== 'created') throw countRefused(outcome, scope.slug, limits.plansPerProject, 'plans');
  const joined: Assignment[] = assignments.map((a) => ({
    assignment: { ...scope, planId, ...a, createdAt: now },
    feature: features.get(a.featureId) as FeatureItem,
  }));
  return toPlanView({ ...plan, version: 1 }, joined);
}

/**
 * Reads the feature head and the features (one Query), then writes; reads again when a
 * feature was deleted in between (a 404 when it is one of those assigned).
 */
export async function createPlan(key: ProjectKey, input: CreatePlanInput, writer: Writer): Promise<PlanView> {
  return untilWritten('project', writer, async () => {
    const { features: projectFeatures, ...target } = await loadFeatures(key);
    const { features: requested, ...fields } = input;
    const refs = uniqueRefs(requested ?? []);
    const features = resolveFeatures(projectFeatures, refs);
    return writeNewPlan(target, { ...planDefaults, ...definedOnly(fields), name: fields.name }, refs, features, writer);
  });
}

/** Copies every field and assignment under new ids; the copy is never popular. */
export async function duplicatePlan(
  key: ProjectKey,
  planId: number,
  input: { name?: string | undefined },
  writer: Writer,
): Promise<PlanView> {
  return untilWritten('plan', writer, async () => {
    const { plan: source, assignments, ...target } = await loadPlan(key, planId);
    // A copy is a new plan: it starts at version 1 (lifecycle.md §1).
    const {
      ownerId,
      slug,
      shareId,
      planId: _id,
      version,
      createdAt,
      updatedAt,
      assigned,
      pricedVersion,
      pricedAt,
      ...fields
    } = source;
    return writeNewPlan(
      target,
      { ...fields, name: input.name ?? copyName(source.name), isPopular: false },
      assignments.map(({ assignment }) => ({ featureId: assignment.featureId, multiplier: assignment.multiplier })),
      new Map(assignments.map(({ feature }) => [feature.featureId, feature])),
      writer,
    );
  });
}

/**
 * Partial update; assignments are not touched here. With If-Match, only while it names the
 * plan as it is (with its features as the plan shows them).
 */
export async function updatePlan(
  key: ProjectKey,
  planId: number,
  input: UpdatePlanInput,
  writer: Writer,
): Promise<PlanView> {
  return untilWritten('plan', writer, async () => {
    const guard = await readRevisionGuard(key, writer.ifMatch);
    const { plan, assignments, scope, projectId } = await loadPlan(key, planId);
    checkIfMatch(writer.ifMatch, toPlanView(plan, assignments));
    const next = priced({ ...plan, ...definedOnly(input) });
    const changes = Object.fromEntries(
      updatablePlanFields()
        .filter((field) => next[field as keyof PlanItem] !== plan[field as keyof PlanItem])
        .map((field) => [field, next[field as keyof PlanItem]]),
    );
    if (Object.keys(changes).length === 0) return toPlanView(plan, assignments);
    const after: PlanItem = { ...plan, ...changes, updatedAt: new Date().toISOString(), version: plan.version + 1 };
    const entry = childChange(projectId, writer, { type: 'plan', id: planId }, plan, after);
    const changed = { ...changes, updatedAt: after.updatedAt };
    const before = contentOfRead(plan, assignments);
    const step = pricedStep(projectId, plan, before, contentOfRead(after, assignments), after.updatedAt);
    const outcome = await updatePlanItem(scope, plan, changed, entry, guard, step);
    if (outcome === 'project_gone') throw projectNotFound(key.slug);
    const saved = step ? { ...after, pricedVersion: step.next, pricedAt: step.at } : after;
    return outcome === 'updated' ? toPlanView(saved, assignments) : 'stale';
  });
}

/** Deletes the plan and its assignments (one change-log entry). */
export async function deletePlan(key: ProjectKey, planId: number, writer: Writer): Promise<void> {
  await untilWritten('plan', writer, async () => {
    const guard = await readRevisionGuard(key, writer.ifMatch);
    const { plan, assignments, projectId } = await loadPlan(key, planId);
    checkIfMatch(writer.ifMatch, toPlanView(plan, assignments));
    const change = changeEntry(projectId, writer, { type: 'plan', id: planId }, childFields(plan), null);
    // The version its customers hold is frozen: deleting the plan takes nothing from them.
    const frozen = frozenOf(projectId, plan, contentOfRead(plan, assignments));
    const outcome = await deletePlanItems(key, planId, { change, version: plan.version, revision: guard, frozen });
    if (outcome === 'project_gone') throw projectNotFound(key.slug);
    if (outcome === 'plan_missing') throw planNotFound(planId);
    return outcome === 'stale' ? 'stale' : 'deleted';
  });
}
