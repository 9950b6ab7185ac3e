import {
  assignmentActions,
  deleteWithAssignments,
  failedAssignments,
  type MissingFeature,
  type NewAssignment,
  PER_ASSIGNMENT,
  undoUnless,
} from './assignments.ts';
import { chunk } from './batch.ts';
import { ifConditionFails, itemOr } from './errors.ts';
import { db } from './service.ts';
import { countedWrite, failedConditions, MAX_TRANSACTION_ITEMS, writeTransaction } from './transactions.ts';
import type { NewPlanItem, PlanItem, ProjectKey, ProjectScope } from './types.ts';

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
): Promise<'created' | 'project_gone' | 'limit_reached' | MissingFeature> {
  const key = { ownerId: scope.ownerId, slug: scope.slug };
  const createdAt = plan.createdAt;
  const finalCapacity = Math.floor((MAX_TRANSACTION_ITEMS - 2) / PER_ASSIGNMENT);
  const early = assignments.slice(0, Math.max(0, assignments.length - finalCapacity));
  const last = assignments.slice(early.length);

  return undoUnless(
    (result) => result === 'created',
    key,
    plan.planId,
    async (written) => {
      for (const batch of chunk(early, Math.floor(MAX_TRANSACTION_ITEMS / PER_ASSIGNMENT))) {
        const outcome = await writeTransaction((entities) =>
          assignmentActions(entities, scope, plan.planId, batch, createdAt),
        );
        if (!outcome.committed) {
          const { missing } = failedAssignments(failedConditions(outcome), batch);
          if (missing) return missing;
          throw new Error('Assignment transaction cancelled for no known reason');
        }
        written.push(...batch);
      }
      const outcome = await countedWrite({
        scope,
        counter: 'planCount',
        delta: 1,
        max: maxPlans,
        actions: (entities) => [
          entities.plan.create(plan).commit(),
          ...assignmentActions(entities, scope, plan.planId, last, createdAt),
        ],
      });
      if (typeof outcome === 'string') return outcome === 'committed' ? 'created' : outcome;
      const { missing } = failedAssignments(
        outcome.failedAt.map((i) => i - 1),
        last,
      );
      if (missing) return missing;
      throw new Error(`Plan id ${plan.planId} already exists`);
    },
  );
}

export interface InsertAssignmentsResult {
  added: NewAssignment[];
  alreadyAssigned: NewAssignment[];
}

/**
 * Assigns features to an existing plan. A pair that is already assigned (also one that a
 * concurrent request assigned a moment ago) is skipped, not an error: the transaction is
 * retried without it. A missing plan or feature undoes what this call wrote.
 */
export async function insertAssignments(
  scope: ProjectScope,
  planId: number,
  assignments: NewAssignment[],
): Promise<InsertAssignmentsResult | 'plan_missing' | MissingFeature> {
  const key = { ownerId: scope.ownerId, slug: scope.slug };
  const createdAt = new Date().toISOString();
  const alreadyAssigned: NewAssignment[] = [];
  const batches = chunk(assignments, Math.floor((MAX_TRANSACTION_ITEMS - 1) / PER_ASSIGNMENT));
  return undoUnless(
    (result) => typeof result === 'object' && 'added' in result,
    key,
    planId,
    async (added) => {
      for (const batch of batches) {
        let pending = batch;
        while (pending.length > 0) {
          const current = pending;
          const outcome = await writeTransaction((entities) => [
            entities.plan
              .check({ ...key, planId })
              .where(({ planId: id, shareId }, { exists, eq }) => `${exists(id)} AND ${eq(shareId, scope.shareId)}`)
              .commit(),
            ...assignmentActions(entities, scope, planId, current, createdAt),
          ]);
          if (outcome.committed) {
            added.push(...current);
            break;
          }
          const failedAt = failedConditions(outcome);
          if (failedAt[0] === 0) return 'plan_missing';
          const failed = failedAssignments(
            failedAt.map((i) => i - 1),
            current,
          );
          if (failed.missing) return failed.missing;
          if (failed.alreadyAssigned.length === 0)
            throw new Error('Assignment transaction cancelled for no known reason');
          alreadyAssigned.push(...failed.alreadyAssigned);
          pending = current.filter((a) => !failed.alreadyAssigned.includes(a));
        }
      }
      return { added, alreadyAssigned };
    },
  );
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
  const patch = db()
    .entities.plan.patch({ ...key, planId })
    .set(changes)
    .add({ version: 1 })
    .where(({ version }, { eq }) => eq(version, expectedVersion));
  return itemOr(patch.go({ response: 'all_new' }), 'stale');
}

/** Deletes the plan and uncounts it in one transaction, then sweeps its assignments. */
export const deletePlan = (key: ProjectKey, planId: number) => deleteWithAssignments(key, { planId });

/** 'not_found' when the feature is not assigned to the plan. */
export const updateAssignment = (key: ProjectKey, planId: number, featureId: number, multiplier: number) =>
  itemOr(
    db()
      .entities.planFeature.patch({ ...key, planId, featureId })
      .set({ multiplier })
      .go({ response: 'all_new' }),
    'not_found',
  );

export async function deleteAssignment(
  key: ProjectKey,
  planId: number,
  featureId: number,
): Promise<'deleted' | 'not_found'> {
  const removal = db()
    .entities.planFeature.delete({ ...key, planId, featureId })
    .where(({ planFeatureId }, { exists }) => exists(planFeatureId));
  return ifConditionFails(
    removal.go().then(() => 'deleted' as const),
    'not_found',
  );
}
