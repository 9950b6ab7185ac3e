import { deleteWithAssignments, type RecordedDelete } from './cascading-deletes.ts';
import { type NewChangeEntryItem, removeChanges } from './changes.ts';
import { StorageBusyError } from './contention.ts';
import {
  ADD_BATCH,
  addEntries,
  assignmentsIn,
  entriesOf,
  entryOf,
  featuresUnchanged,
  type MissingFeature,
  type NewAssignment,
  removeEntries,
  writeEntry,
} from './plan-assignments.ts';
import { type PricedStep, stepActions } from './plan-versions.ts';
import { readFeatureList, readPlan } from './project-parts.ts';
import { countedWrite } from './transactions.ts';
import type { NewPlanItem, PlanAssignment, PlanItem, ProjectKey, ProjectScope } from './types.ts';

export type { NewAssignment };

/**
 * Creates a plan with its assignments (in its item, at any number) and counts it on the
 * project, with its change-log entry (one for the plan and all it assigns), in one
 * transaction. The features must be those read with `featureDeletes` (the feature head's
 * count): 'features_changed' when one was deleted since, for the caller to read again.
 */
export async function insertPlan(
  scope: ProjectScope,
  plan: Omit<NewPlanItem, 'assigned'>,
  assignments: NewAssignment[],
  maxPlans: number,
  change: NewChangeEntryItem,
  featureDeletes: number,
): Promise<'created' | 'project_gone' | 'limit_reached' | 'features_changed'> {
  const outcome = await countedWrite({
    scope,
    counter: 'planCount',
    delta: 1,
    max: maxPlans,
    actions: (entities) => [
      entities.plan.create({ ...plan, assigned: entriesOf(assignments, plan.createdAt) }).commit(),
      ...(assignments.length > 0 ? [featuresUnchanged(entities, scope, featureDeletes)] : []),
    ],
    changes: [change],
  });
  if (outcome === 'committed') return 'created';
  if (outcome === 'project_gone' || outcome === 'limit_reached') return outcome;
  if (outcome === 'stale') throw new Error('A plan create is never guarded by a revision');
  if (outcome.failedAt.includes(1)) return 'features_changed';
  throw new Error(`Plan id ${plan.planId} already exists`);
}

export interface InsertAssignmentsResult {
  added: NewAssignment[];
  alreadyAssigned: NewAssignment[];
}

/** Failed adds in a row (each followed by a read) before the add gives up with a 503. */
const MAX_ADD_RETRIES = 8;

/**
 * Assigns features to an existing plan, each with its change-log entry (`records`, in the
 * order of `assignments`), ADD_BATCH to a transaction. A feature the plan already has (also
 * one a concurrent request assigned a moment ago) is skipped, not an error: after a failed
 * condition the plan and the features are read again and the rest is retried without it. A
 * missing plan or feature, or a failure, undoes what this call wrote (entries and their
 * change-log entries).
 */
export async function insertAssignments(
  scope: ProjectScope,
  planId: number,
  /** The feature head's count of feature deletes, read with the features (featuresUnchanged). */
  featureDeletes: number,
  assignments: NewAssignment[],
  records: NewChangeEntryItem[],
  // The time the change-log entries record, so a later write's `before` is their `after`.
  createdAt = new Date().toISOString(),
  // The plan's version step: taken by the first batch, so one request moves the version once.
  priced?: PricedStep,
): Promise<InsertAssignmentsResult | 'plan_missing' | 'project_gone' | 'stale' | MissingFeature> {
  const key = { ownerId: scope.ownerId, slug: scope.slug };
  const recordOf = new Map(assignments.map((a, i) => [a, records[i] as NewChangeEntryItem]));
  const added: NewAssignment[] = [];
  const alreadyAssigned: NewAssignment[] = [];
  let deletes = featureDeletes;
  let pending = assignments;
  let succeeded = false;
  try {
    for (let failures = 0; pending.length > 0; ) {
      const batch = pending.slice(0, ADD_BATCH);
      const step = added.length === 0 ? priced : undefined;
      const outcome = await countedWrite({
        scope,
        actions: (entities) => [
          featuresUnchanged(entities, scope, deletes),
          addEntries(scope, planId, batch, createdAt, step),
          ...(step ? stepActions(entities, step) : []),
        ],
        changes: batch.map((a) => recordOf.get(a) as NewChangeEntryItem),
      });
      if (outcome === 'committed') {
        added.push(...batch);
        pending = pending.slice(batch.length);
        failures = 0;
        continue;
      }
      if (outcome === 'project_gone') return outcome;
      if (typeof outcome === 'string') throw new Error(`Unexpected outcome of an assignment: ${outcome}`);
      if (++failures > MAX_ADD_RETRIES)
        throw new StorageBusyError('The plan kept changing while features were assigned');
      // Read again what the failed condition was about.
      if (outcome.failedAt.includes(0)) {
        const list = await readFeatureList(key);
        if (!list || list.head.shareId !== scope.shareId) return 'project_gone';
        const present = new Set(list.features.map((f) => f.featureId));
        const missing = pending.find((a) => !present.has(a.featureId));
        if (missing) return { missingFeatureId: missing.featureId };
        deletes = list.head.featureDeletes;
      }
      if (outcome.failedAt.includes(1)) {
        const stored = await readPlan(key, planId);
        if (stored?.shareId !== scope.shareId) return 'plan_missing';
        // A priced write came first: the version step was read from a plan that is no more.
        if (step && stored.pricedVersion !== step.read) return 'stale';
        const has = new Set(assignmentsIn(stored).map((a) => a.featureId));
        alreadyAssigned.push(...pending.filter((a) => has.has(a.featureId)));
        pending = pending.filter((a) => !has.has(a.featureId));
      }
    }
    succeeded = true;
    return { added, alreadyAssigned };
  } finally {
    if (!succeeded && added.length > 0) {
      const featureIds = added.map((a) => a.featureId);
      // Only the entries as this call wrote them: one another request has changed since (or
      // removed, and maybe assigned again) stays, with this call's change-log entry for it,
      // so the log still replays to what is stored.
      const ours = new Map(added.map((a) => [a.featureId, entryOf(a, createdAt)]));
      const removed = new Set(await removeEntries(scope, planId, featureIds, ours));
      await removeChanges(added.flatMap((a) => (removed.has(a.featureId) ? (recordOf.get(a) ?? []) : [])));
    }
  }
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
 * Writes the changes of a plan read at `read.version`, with its change-log entry (`record`),
 * guarded by the project's `revision` when given (If-Match). 'stale' when the plan changed
 * since the read: the caller reads again.
 */
export async function updatePlanItem(
  scope: ProjectScope,
  read: PlanItem,
  changes: PlanChanges,
  record: NewChangeEntryItem,
  revision: number | undefined,
  priced?: PricedStep,
): Promise<RecordedOutcome<'updated'>> {
  const { shareId: _share, ...key } = scope;
  const outcome = await countedWrite({
    scope,
    revision,
    changes: [record],
    actions: (entities) => [
      entities.plan
        .patch({ ...key, planId: read.planId })
        .set(priced ? { ...changes, pricedVersion: priced.next, pricedAt: priced.at } : changes)
        .add({ version: 1 })
        .where(({ version, pricedVersion }, operations) =>
          [
            operations.eq(version, read.version),
            // A plan that never moved has no pricedVersion (version 1).
            ...(priced
              ? [
                  priced.read === undefined
                    ? operations.notExists(pricedVersion)
                    : operations.eq(pricedVersion, priced.read),
                ]
              : []),
          ].join(' AND '),
        )
        .commit(),
      ...(priced ? stepActions(entities, priced) : []),
    ],
  });
  return recorded(outcome, 'updated');
}

/** Deletes the plan (its assignments are in its item) and uncounts it in one transaction. */
export const deletePlan = (key: ProjectKey, planId: number, recordedDelete?: RecordedDelete) =>
  deleteWithAssignments(key, { planId }, recordedDelete);

/**
 * Sets an assignment's multiplier, or removes it (`multiplier` null), with its change-log
 * entry (`record`), while it is the assignment read with the multiplier read (If-Match: also
 * guarded by `revision`).
 */
export async function writeAssignment(
  scope: ProjectScope,
  read: PlanAssignment,
  multiplier: number | null,
  record: NewChangeEntryItem,
  revision: number | undefined,
  priced?: PricedStep,
): Promise<RecordedOutcome<'written'>> {
  const outcome = await countedWrite({
    scope,
    revision,
    changes: [record],
    actions: (entities) => [
      writeEntry(scope, read.planId, read, multiplier, priced),
      ...(priced ? stepActions(entities, priced) : []),
    ],
  });
  return recorded(outcome, 'written');
}
