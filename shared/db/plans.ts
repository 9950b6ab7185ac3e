import {
  assignmentActions,
  deleteWithAssignments,
  failedAssignments,
  type MissingFeature,
  type NewAssignment,
  PER_ASSIGNMENT,
  PER_RECORDED_ASSIGNMENT,
  type RecordedDelete,
  undoUnless,
} from './assignments.ts';
import { chunk } from './batch.ts';
import type { NewChangeEntryItem } from './changes.ts';
import { atPlanKey, type PlanLayout } from './plan-keys.ts';
import {
  countedWrite,
  failedConditions,
  MAX_TRANSACTION_ITEMS,
  projectIsLive,
  type TransactionEntities,
  writeTransaction,
} from './transactions.ts';
import type { NewPlanItem, PlanItem, ProjectKey, ProjectScope } from './types.ts';
import { versionIs } from './versions.ts';

/**
 * Creates a plan with its assignments and counts it on the project, with its change-log
 * entry (one for the plan and all it assigns). Up to 48 assignments fit in the plan's own
 * transaction; larger plans write the rest first, in transactions of
 * their own, while the plan does not exist yet, so no reader sees a half-made plan. If the
 * final transaction fails, what was written is removed again.
 */
export async function insertPlan(
  scope: ProjectScope,
  plan: NewPlanItem,
  assignments: NewAssignment[],
  maxPlans: number,
  change: NewChangeEntryItem,
): Promise<'created' | 'project_gone' | 'limit_reached' | MissingFeature> {
  const key = { ownerId: scope.ownerId, slug: scope.slug };
  const createdAt = plan.createdAt;
  // The project, the plan and the entry, then two actions per assignment.
  const finalCapacity = Math.floor((MAX_TRANSACTION_ITEMS - 3) / PER_ASSIGNMENT);
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
        changes: [change],
      });
      if (outcome === 'committed') return 'created';
      if (outcome === 'project_gone' || outcome === 'limit_reached') return outcome;
      if (outcome === 'stale') throw new Error('A plan create is never guarded by a revision');
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
 * Assigns features to an existing plan, each with its change-log entry (`entries`, in the
 * order of `assignments`). A pair that is already assigned (also one that a
 * concurrent request assigned a moment ago) is skipped, not an error: the transaction is
 * retried without it (and its entry). A missing plan or feature undoes what this call wrote.
 */
export async function insertAssignments(
  scope: ProjectScope,
  planId: number,
  read: PlanLayout,
  assignments: NewAssignment[],
  entries: NewChangeEntryItem[],
): Promise<InsertAssignmentsResult | 'plan_missing' | 'project_gone' | MissingFeature> {
  const key = { ownerId: scope.ownerId, slug: scope.slug };
  const createdAt = new Date().toISOString();
  const alreadyAssigned: NewAssignment[] = [];
  const entryOf = new Map(assignments.map((a, i) => [a, entries[i] as NewChangeEntryItem]));
  // The project and the plan check, then three actions per assignment.
  const batches = chunk(assignments, Math.floor((MAX_TRANSACTION_ITEMS - 2) / PER_RECORDED_ASSIGNMENT));
  // Where the plan check looks: where the plan was read, until a check there fails.
  let layout = read;
  return undoUnless(
    (result) => typeof result === 'object' && 'added' in result,
    key,
    planId,
    async (added) => {
      for (const batch of batches) {
        let pending = batch;
        while (pending.length > 0) {
          const current = pending;
          const outcome = await countedWrite({
            scope,
            actions: (entities) => [
              atPlanKey(
                entities.plan
                  .check({ ...key, planId })
                  .where(({ planId: id, shareId }, { exists, eq }) => `${exists(id)} AND ${eq(shareId, scope.shareId)}`)
                  .commit(),
                planId,
                layout,
              ),
              ...assignmentActions(entities, scope, planId, current, createdAt),
            ],
            changes: current.map((a) => entryOf.get(a) as NewChangeEntryItem),
          });
          if (outcome === 'committed') {
            added.push(...current);
            break;
          }
          if (typeof outcome === 'string') {
            if (outcome === 'project_gone') return outcome;
            throw new Error(`Unexpected outcome of an assignment: ${outcome}`);
          }
          if (outcome.failedAt[0] === 0) {
            // A plan read at its old key may have been moved since by a concurrent write.
            if (layout === 'prefix') return 'plan_missing';
            layout = 'prefix';
            continue;
          }
          const failed = failedAssignments(
            outcome.failedAt.map((i) => i - 1),
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
    (a) => entryOf.get(a),
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

/** Outcome of a recorded single-item write: 'stale' when what it read changed since. */
export type RecordedOutcome<Done extends string> = Done | 'stale' | 'project_gone';

const recorded = <Done extends string>(
  outcome: Awaited<ReturnType<typeof countedWrite>>,
  done: Done,
): RecordedOutcome<Done> => (outcome === 'committed' ? done : outcome === 'project_gone' ? outcome : 'stale');

/**
 * Writes the changes of a plan read at `read.version` (where `layout` says it was read), with
 * its change-log entry, guarded by the project's `revision` when given (If-Match). A plan read
 * at its old key is moved in the same transaction: the old item deleted while it is the one
 * read, the changed one created under the plan's prefix. A concurrent writer that moved or
 * changed it first fails that condition: 'stale', and the caller reads again.
 */
export async function updatePlanItem(
  scope: ProjectScope,
  read: PlanItem,
  layout: PlanLayout,
  changes: PlanChanges,
  change: NewChangeEntryItem,
  revision: number | undefined,
): Promise<RecordedOutcome<'updated'>> {
  const { shareId: _share, ...key } = scope;
  const itemKey = { ...key, planId: read.planId };
  const outcome = await countedWrite({
    scope,
    revision,
    changes: [change],
    actions: ({ plan }) => {
      if (layout === 'legacy') {
        const { remove, create } = moveActions(plan, scope, read, {
          ...read,
          ...changes,
          version: (read.version ?? 0) + 1,
        });
        return [remove, create];
      }
      return [
        plan
          .patch(itemKey)
          .set(changes)
          .add({ version: 1 })
          .where(({ version }, operations) => versionIs(read.version, version, operations))
          .commit(),
      ];
    },
  });
  return recorded(outcome, 'updated');
}

/**
 * The two actions that move a plan read at its old key under its assignments' prefix, as
 * `moved`: the old item deleted while it is there with the project's share id and is still
 * the version read, and `moved` created at the new key, which must not exist. Both commit or
 * neither, so however writers race a plan never has two items.
 */
function moveActions(plan: TransactionEntities['plan'], scope: ProjectScope, read: PlanItem, moved: NewPlanItem) {
  const { shareId, ...key } = scope;
  return {
    remove: atPlanKey(
      plan
        .delete({ ...key, planId: read.planId })
        .where(
          ({ planId, shareId: share, version }, operations) =>
            `${operations.exists(planId)} AND ${operations.eq(share, shareId)} AND ${versionIs(read.version, version, operations)}`,
        )
        .commit(),
      read.planId,
      'legacy',
    ),
    create: plan.create(moved).commit(),
  };
}

/**
 * Moves a plan still at its old key (read there as `read`) under its assignments' prefix,
 * unchanged, for the one-off migration: the actions of a write's move (moveActions) beside a
 * check that the project is live, where a write patches the project item. A move is not a
 * change: no change-log entry, and neither the plan's version and updatedAt nor the project's
 * revision move, so every answer and ETag stays byte for byte what it was. A writer that read
 * the plan at its old key meanwhile fails its own condition there and reads again, finding
 * the same plan at the new key (and an If-Match that still holds).
 *
 * 'stale': the old key no longer holds the plan read (a write moved it, or it was deleted);
 * 'project_gone': the project was deleted or marked deleting (its sweep deletes both keys of
 * every plan it reads, and must not meet one created behind it); 'taken': a plan item already
 * sits at the new key beside the old one, which no write makes: left as it is for a person.
 */
export async function movePlan(
  scope: ProjectScope,
  read: PlanItem,
): Promise<'moved' | 'stale' | 'project_gone' | 'taken'> {
  const outcome = await writeTransaction((entities) => {
    const { remove, create } = moveActions(entities.plan, scope, read, read);
    // A plan from before versions has none, and ElectroDB's create would write its default.
    if (read.version === undefined)
      delete (create as unknown as { Put: { Item: { version?: number } } }).Put.Item.version;
    return [projectIsLive(entities, scope), remove, create];
  });
  if (outcome.committed) return 'moved';
  const [project, old, created] = outcome.reasons.map((reason) => reason.code === 'ConditionalCheckFailed');
  if (project) return 'project_gone';
  if (old) return 'stale';
  if (created) return 'taken';
  throw new Error(`Plan move cancelled: ${outcome.reasons.map((reason) => reason.code).join(', ')}`);
}

/**
 * Deletes the plan (where `layout` says it was read) and uncounts it in one transaction, then
 * sweeps its assignments.
 */
export const deletePlan = (key: ProjectKey, planId: number, layout: PlanLayout, recordedDelete?: RecordedDelete) =>
  deleteWithAssignments(key, { planId, layout }, recordedDelete);

type AssignmentWhere = Parameters<ReturnType<TransactionEntities['planFeature']['delete']>['where']>[0];

/** The assignment as read: a write to it is refused once its multiplier is another. */
export interface ReadAssignment {
  planId: number;
  featureId: number;
  multiplier: number;
}

/**
 * Sets an assignment's multiplier, or removes it (`multiplier` null), with its change-log
 * entry, while its multiplier is the one read (If-Match: also guarded by `revision`).
 */
export async function writeAssignment(
  scope: ProjectScope,
  read: ReadAssignment,
  multiplier: number | null,
  change: NewChangeEntryItem,
  revision: number | undefined,
): Promise<RecordedOutcome<'written'>> {
  const { shareId: _share, ...key } = scope;
  const itemKey = { ...key, planId: read.planId, featureId: read.featureId };
  const outcome = await countedWrite({
    scope,
    revision,
    changes: [change],
    actions: ({ planFeature }) => {
      const unchanged: AssignmentWhere = ({ multiplier: current }, { eq }) => eq(current, read.multiplier);
      return [
        multiplier === null
          ? planFeature.delete(itemKey).where(unchanged).commit()
          : planFeature.patch(itemKey).set({ multiplier }).where(unchanged).commit(),
      ];
    },
  });
  return recorded(outcome, 'written');
}
