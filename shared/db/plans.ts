import { featureNotFound, LimitExceededError, planNotFound, projectNotFound } from '#domain/errors.ts';
import { chunk, deleteAll } from './batch.ts';
import { isConditionalCheckFailed } from './errors.ts';
import { db } from './service.ts';
import { conditionFailedAt, MAX_TRANSACTION_ITEMS, type TransactionOutcome, writeTransaction } from './transactions.ts';
import type { NewPlanFeatureItem, NewPlanItem, PlanFeatureItem, PlanItem, ProjectKey, ProjectScope } from './types.ts';

/** An assignment to write: the ids are allocated by the caller. */
export interface NewAssignment {
  featureId: number;
  multiplier: number;
  planFeatureId: number;
}

/**
 * Every assignment is written in a transaction together with a check that its feature (and,
 * for an existing plan, the plan) still exists. That pairing is what lets feature and plan
 * deletes sweep assignments afterwards without missing one. Two actions per assignment.
 */
const PER_ASSIGNMENT = 2;

function assignmentItem(scope: ProjectScope, planId: number, a: NewAssignment, createdAt: string): NewPlanFeatureItem {
  return {
    ...scope,
    planId,
    featureId: a.featureId,
    planFeatureId: a.planFeatureId,
    multiplier: a.multiplier,
    createdAt,
  };
}

type Builder = Parameters<typeof writeTransaction>[0];
type Entities = Parameters<Builder>[0];

function assignmentActions(
  entities: Entities,
  scope: ProjectScope,
  planId: number,
  batch: NewAssignment[],
  createdAt: string,
) {
  const key = { ownerId: scope.ownerId, slug: scope.slug };
  return batch.flatMap((a) => [
    entities.feature
      .check({ ...key, featureId: a.featureId })
      .where(({ featureId }, { exists }) => exists(featureId))
      .commit(),
    entities.planFeature.create(assignmentItem(scope, planId, a, createdAt)).commit(),
  ]);
}

/** Which assignment of a batch a cancelled transaction points at, and why. */
function failedAssignments(outcome: TransactionOutcome, offset: number, batch: NewAssignment[]) {
  const missingFeatures: number[] = [];
  const alreadyAssigned: NewAssignment[] = [];
  batch.forEach((a, i) => {
    if (conditionFailedAt(outcome, offset + i * PER_ASSIGNMENT)) missingFeatures.push(a.featureId);
    if (conditionFailedAt(outcome, offset + i * PER_ASSIGNMENT + 1)) alreadyAssigned.push(a);
  });
  return { missingFeatures, alreadyAssigned };
}

async function removeAssignments(key: ProjectKey, planId: number, featureIds: number[]): Promise<void> {
  await deleteAll(
    db().entities.planFeature,
    featureIds.map((featureId) => ({ ...key, planId, featureId })),
  );
}

/**
 * Creates a plan with its assignments and counts it on the project. Up to 49 assignments
 * fit in the plan's own transaction; larger plans write the rest first, in transactions of
 * their own, while the plan does not exist yet, so no reader sees a half-made plan. If the
 * final transaction fails, what was written is removed again.
 */
export async function insertPlan(
  scope: ProjectScope,
  plan: NewPlanItem,
  assignments: NewAssignment[],
  maxPlans: number,
): Promise<void> {
  const key = { ownerId: scope.ownerId, slug: scope.slug };
  const createdAt = plan.createdAt;
  const finalCapacity = Math.floor((MAX_TRANSACTION_ITEMS - 2) / PER_ASSIGNMENT);
  const early = assignments.slice(0, Math.max(0, assignments.length - finalCapacity));
  const last = assignments.slice(early.length);
  const written: number[] = [];

  try {
    for (const batch of chunk(early, Math.floor(MAX_TRANSACTION_ITEMS / PER_ASSIGNMENT))) {
      const outcome = await writeTransaction((entities) =>
        assignmentActions(entities, scope, plan.planId, batch, createdAt),
      );
      if (!outcome.committed) {
        const { missingFeatures } = failedAssignments(outcome, 0, batch);
        throw featureNotFound(missingFeatures[0] ?? '?');
      }
      written.push(...batch.map((a) => a.featureId));
    }

    const outcome = await writeTransaction((entities) => [
      entities.project
        .patch(key)
        .add({ planCount: 1 })
        .where(
          ({ deletingAt, planCount }, { notExists, lt }) => `${notExists(deletingAt)} AND ${lt(planCount, maxPlans)}`,
        )
        .commit({ response: 'all_old' }),
      entities.plan.create(plan).commit(),
      ...assignmentActions(entities, scope, plan.planId, last, createdAt),
    ]);
    if (outcome.committed) return;
    if (conditionFailedAt(outcome, 0)) {
      const current = outcome.reasons[0]?.item;
      if (!current || current.deletingAt) throw projectNotFound(key.slug);
      throw new LimitExceededError(`A project holds at most ${maxPlans} plans; delete one before adding another.`);
    }
    const { missingFeatures } = failedAssignments(outcome, 2, last);
    if (missingFeatures.length > 0) throw featureNotFound(missingFeatures[0] ?? '?');
    throw new Error(`Plan id ${plan.planId} already exists`);
  } catch (error) {
    await removeAssignments(key, plan.planId, written);
    throw error;
  }
}

export interface InsertAssignmentsResult {
  added: NewAssignment[];
  alreadyAssigned: NewAssignment[];
}

/**
 * Assigns features to an existing plan. A pair that is already assigned (also one that a
 * concurrent request assigned a moment ago) is skipped, not an error: the transaction is
 * retried without it. A missing plan or feature undoes what this call wrote and fails.
 */
export async function insertAssignments(
  scope: ProjectScope,
  planId: number,
  assignments: NewAssignment[],
): Promise<InsertAssignmentsResult> {
  const key = { ownerId: scope.ownerId, slug: scope.slug };
  const createdAt = new Date().toISOString();
  const added: NewAssignment[] = [];
  const alreadyAssigned: NewAssignment[] = [];
  try {
    for (const batch of chunk(assignments, Math.floor((MAX_TRANSACTION_ITEMS - 1) / PER_ASSIGNMENT))) {
      let pending = batch;
      while (pending.length > 0) {
        const current = pending;
        const outcome = await writeTransaction((entities) => [
          entities.plan
            .check({ ...key, planId })
            .where(({ planId: id }, { exists }) => exists(id))
            .commit(),
          ...assignmentActions(entities, scope, planId, current, createdAt),
        ]);
        if (outcome.committed) {
          added.push(...current);
          break;
        }
        if (conditionFailedAt(outcome, 0)) throw planNotFound(planId);
        const failed = failedAssignments(outcome, 1, current);
        if (failed.missingFeatures.length > 0) throw featureNotFound(failed.missingFeatures[0] ?? '?');
        if (failed.alreadyAssigned.length === 0)
          throw new Error('Assignment transaction cancelled for no known reason');
        alreadyAssigned.push(...failed.alreadyAssigned);
        pending = current.filter((a) => !failed.alreadyAssigned.includes(a));
      }
    }
  } catch (error) {
    await removeAssignments(
      key,
      planId,
      added.map((a) => a.featureId),
    );
    throw error;
  }
  return { added, alreadyAssigned };
}

export type PlanChanges = Partial<
  Pick<
    PlanItem,
    | 'name'
    | 'description'
    | 'basePrice'
    | 'isPopular'
    | 'isVisible'
    | 'isFree'
    | 'freemiumDay'
    | 'isPerUserPricing'
    | 'perUserMultiplier'
  >
> & { updatedAt: string };

/** Read-modify-write guarded by the plan's version; 'stale' when it changed or vanished. */
export async function updatePlanItem(
  key: ProjectKey,
  planId: number,
  expectedVersion: number,
  changes: PlanChanges,
): Promise<PlanItem | 'stale'> {
  try {
    const { data } = await db()
      .entities.plan.patch({ ...key, planId })
      .set(changes)
      .add({ version: 1 })
      .where(({ version }, { eq }) => eq(version, expectedVersion))
      .go({ response: 'all_new' });
    return data as PlanItem;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return 'stale';
    throw error;
  }
}

/** Deletes the plan and uncounts it in one transaction, then sweeps its assignments. */
export async function deletePlan(key: ProjectKey, planId: number): Promise<void> {
  const outcome = await writeTransaction(({ project, plan }) => [
    plan
      .delete({ ...key, planId })
      .where(({ planId: id }, { exists }) => exists(id))
      .commit(),
    project
      .patch(key)
      .subtract({ planCount: 1 })
      .where(({ deletingAt }, { notExists }) => notExists(deletingAt))
      .commit(),
  ]);
  if (!outcome.committed) {
    if (conditionFailedAt(outcome, 1)) throw projectNotFound(key.slug);
    throw planNotFound(planId);
  }
  const { data } = await db()
    .entities.planFeature.query.projectData({ ...key, planId })
    .go({ pages: 'all', consistent: true });
  await removeAssignments(
    key,
    planId,
    data.map((a) => a.featureId),
  );
}

/** Returns undefined when the feature is not assigned to the plan. */
export async function updateAssignment(
  key: ProjectKey,
  planId: number,
  featureId: number,
  multiplier: number,
): Promise<PlanFeatureItem | undefined> {
  try {
    const { data } = await db()
      .entities.planFeature.patch({ ...key, planId, featureId })
      .set({ multiplier })
      .go({ response: 'all_new' });
    return data as PlanFeatureItem;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
}

/** Returns false when the feature was not assigned to the plan. */
export async function deleteAssignment(key: ProjectKey, planId: number, featureId: number): Promise<boolean> {
  try {
    await db()
      .entities.planFeature.delete({ ...key, planId, featureId })
      .where(({ planFeatureId }, { exists }) => exists(planFeatureId))
      .go();
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}
