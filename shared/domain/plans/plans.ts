import { limits } from '#contract/limits.ts';
import type { NewAssignment } from '#db/assignments.ts';
import { allocateIds } from '#db/ids.ts';
import { deletePlan as deletePlanItems, insertPlan, updatePlanItem } from '#db/plans.ts';
import type { FeatureItem, PlanItem, ProjectKey, ProjectScope } from '#db/types.ts';
import { ConflictError, countRefused, featureNotFound, planNotFound, projectNotFound } from '../errors.ts';
import { definedOnly } from '../fields.ts';
import { loadFeatures, loadPlan, loadProject } from '../projects/load.ts';
import { slugPattern } from '../projects/slug.ts';
import {
  type CreatePlanInput,
  type FeatureRefInput,
  type PlanView,
  planDefaults,
  type UpdatePlanInput,
  updatablePlanFields,
} from './schemas.ts';
import { type Assignment, planViews, toPlanView } from './view.ts';

const MAX_UPDATE_ATTEMPTS = 5;
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
 * Writes a new plan with its assignments (ids allocated here) and returns its view. Shared
 * by create and duplicate.
 */
async function writeNewPlan(
  scope: ProjectScope,
  fields: Omit<PlanItem, 'ownerId' | 'slug' | 'shareId' | 'planId' | 'version' | 'createdAt' | 'updatedAt'>,
  refs: FeatureRefInput[],
  features: Map<number, FeatureItem>,
): Promise<PlanView> {
  const [[planId], planFeatureIds] = await Promise.all([allocateIds('plan'), allocateIds('planFeature', refs.length)]);
  if (planId === undefined) throw new Error('No plan id allocated');
  const now = new Date().toISOString();
  const plan = { ...priced(fields), ...scope, planId, createdAt: now, updatedAt: now };
  const assignments: NewAssignment[] = refs.map((ref, i) => ({
    featureId: ref.featureId,
    multiplier: ref.multiplier,
    planFeatureId: planFeatureIds[i] as number,
  }));
  const outcome = await insertPlan(scope, plan, assignments, limits.plansPerProject);
  if (typeof outcome === 'object') throw featureNotFound(outcome.missingFeatureId);
  if (outcome !== 'created') throw countRefused(outcome, scope.slug, limits.plansPerProject, 'plans');
  const joined: Assignment[] = assignments.map((a) => ({
    assignment: { ...scope, planId, ...a, createdAt: now },
    feature: features.get(a.featureId) as FeatureItem,
  }));
  return toPlanView({ ...plan, version: 1 }, joined);
}

/** Reads the feature head and the features (one Query), then writes. */
export async function createPlan(key: ProjectKey, input: CreatePlanInput): Promise<PlanView> {
  const { scope, features: projectFeatures } = await loadFeatures(key);
  const { features: requested, ...fields } = input;
  const refs = uniqueRefs(requested ?? []);
  const features = resolveFeatures(projectFeatures, refs);
  return writeNewPlan(scope, { ...planDefaults, ...definedOnly(fields), name: fields.name }, refs, features);
}

/** Copies every field and assignment under new ids; the copy is never popular. */
export async function duplicatePlan(
  key: ProjectKey,
  planId: number,
  input: { name?: string | undefined },
): Promise<PlanView> {
  const { scope, plan: source, assignments } = await loadPlan(key, planId);
  const { ownerId, slug, shareId, planId: _id, version, createdAt, updatedAt, ...fields } = source;
  return writeNewPlan(
    scope,
    { ...fields, name: input.name ?? copyName(source.name), isPopular: false },
    assignments.map(({ assignment }) => ({ featureId: assignment.featureId, multiplier: assignment.multiplier })),
    new Map(assignments.map(({ feature }) => [feature.featureId, feature])),
  );
}

/** Partial update; assignments are not touched here. */
export async function updatePlan(key: ProjectKey, planId: number, input: UpdatePlanInput): Promise<PlanView> {
  for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
    const { plan, assignments } = await loadPlan(key, planId);
    const next = priced({ ...plan, ...definedOnly(input) });
    const changes = Object.fromEntries(
      updatablePlanFields
        .filter((field) => next[field as keyof PlanItem] !== plan[field as keyof PlanItem])
        .map((field) => [field, next[field as keyof PlanItem]]),
    );
    if (Object.keys(changes).length === 0) return toPlanView(plan, assignments);
    const updated = await updatePlanItem(key, planId, plan.version, {
      ...changes,
      updatedAt: new Date().toISOString(),
    });
    if (updated !== 'stale') return toPlanView(updated, assignments);
  }
  throw new ConflictError('The plan kept changing while this update was applied; retry it.');
}

/**
 * Deletes the plan and its assignments. Deleting a plan that is already gone is a 404,
 * after removing what a delete cut short left of its assignments.
 */
export async function deletePlan(key: ProjectKey, planId: number): Promise<void> {
  if (!slugPattern.test(key.slug)) throw projectNotFound(key.slug);
  const outcome = await deletePlanItems(key, planId);
  if (outcome === 'project_gone') throw projectNotFound(key.slug);
  if (outcome === 'plan_missing') throw planNotFound(planId);
}
