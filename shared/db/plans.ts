import { deleteWithAssignments, type MissingFeature, type RecordedDelete } from './assignments.ts';
import { type NewChangeEntryItem, removeChanges } from './changes.ts';
import { StorageBusyError } from './contention.ts';
import {
  ADD_BATCH,
  addEntries,
  entriesOf,
  featuresUnchanged,
  type NewAssignment,
  removeEntries,
  storedInPlan,
  writeEntry,
} from './plan-assignments.ts';
import { atPlanKey, type PlanLayout, readStoredPlan } from './plan-keys.ts';
import { readFeatureList } from './project-parts.ts';
import { countedWrite, projectIsLive, type TransactionEntities, writeTransaction } from './transactions.ts';
import type { NewPlanItem, PlanFeatureItem, PlanItem, ProjectKey, ProjectScope } from './types.ts';
import { versionIs } from './versions.ts';

/**
 * Creates a plan with its assignments (in its item, at any number) and counts it on the
 * project, with its change-log entry (one for the plan and all it assigns), in one
 * transaction. The features must be those read with `featureDeletes` (the feature head's
 * count): 'features_changed' when one was deleted since, for the caller to read again.
 */
export async function insertPlan(
  scope: ProjectScope,
  plan: NewPlanItem,
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

/** The plan as an add found it: where its item is, whether it has its map yet, the head's count. */
export interface AddTarget {
  layout: PlanLayout;
  hasMap: boolean;
  featureDeletes: number;
}

/** Failed adds in a row (each followed by a read) before the add gives up with a 503. */
const MAX_ADD_RETRIES = 8;

/**
 * Assigns features to an existing plan, each with its change-log entry (`entries`, in the
 * order of `assignments`), ADD_BATCH to a transaction. A feature the plan already has (also
 * one a concurrent request assigned a moment ago) is skipped, not an error: after a failed
 * condition the plan and the features are read again and the rest is retried without it. A
 * missing plan or feature, or a failure, undoes what this call wrote (entries and their
 * change-log entries).
 */
export async function insertAssignments(
  scope: ProjectScope,
  planId: number,
  read: AddTarget,
  assignments: NewAssignment[],
  entries: NewChangeEntryItem[],
  // The time the change-log entries record, so a later write's `before` is their `after`.
  createdAt = new Date().toISOString(),
): Promise<InsertAssignmentsResult | 'plan_missing' | 'project_gone' | MissingFeature> {
  const key = { ownerId: scope.ownerId, slug: scope.slug };
  const entryOf = new Map(assignments.map((a, i) => [a, entries[i] as NewChangeEntryItem]));
  const added: NewAssignment[] = [];
  const alreadyAssigned: NewAssignment[] = [];
  let target = read;
  let pending = assignments;
  let succeeded = false;
  try {
    for (let failures = 0; pending.length > 0; ) {
      const batch = pending.slice(0, ADD_BATCH);
      const { layout, hasMap, featureDeletes } = target;
      const outcome = await countedWrite({
        scope,
        actions: (entities) => [
          featuresUnchanged(entities, scope, featureDeletes),
          addEntries(scope, planId, layout, hasMap, batch, createdAt),
        ],
        changes: batch.map((a) => entryOf.get(a) as NewChangeEntryItem),
      });
      if (outcome === 'committed') {
        added.push(...batch);
        pending = pending.slice(batch.length);
        target = { ...target, hasMap: true };
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
        target = { ...target, featureDeletes: list.head.featureDeletes ?? 0 };
      }
      if (outcome.failedAt.includes(1)) {
        const stored = await readStoredPlan(key, planId);
        const plan = stored.plan?.shareId === scope.shareId ? stored.plan : undefined;
        if (!plan) return 'plan_missing';
        target = { ...target, layout: stored.layout, hasMap: plan.assigned !== undefined };
        const has = new Set(stored.assignments.filter((a) => a.shareId === scope.shareId).map((a) => a.featureId));
        const taken = pending.filter((a) => has.has(a.featureId));
        alreadyAssigned.push(...taken);
        pending = pending.filter((a) => !has.has(a.featureId));
      }
    }
    succeeded = true;
    return { added, alreadyAssigned };
  } finally {
    if (!succeeded && added.length > 0) {
      const { layout } = target;
      const featureIds = added.map((a) => a.featureId);
      // Only the entries as this call wrote them: one another request has changed since (or
      // removed, and maybe assigned again) stays, with this call's change-log entry for it,
      // so the log still replays to what is stored.
      const ours = new Map(added.map((a) => [a.featureId, { i: a.planFeatureId, m: a.multiplier, c: createdAt }]));
      // Where the plan is now: a concurrent write may have moved it from its old key.
      const removed = new Set(await removeEntries(scope, planId, layout, featureIds, ours));
      if (layout === 'legacy') {
        for (const featureId of await removeEntries(scope, planId, 'prefix', featureIds, ours)) removed.add(featureId);
      }
      await removeChanges(added.flatMap((a) => (removed.has(a.featureId) ? (entryOf.get(a) ?? []) : [])));
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
 * Folds a plan's assignment items (stored before assignments moved into their plan's item)
 * into its map, for the one-off migration: ADD_BATCH items to a transaction, which adds their
 * entries to the plan (each with its own id, multiplier and date: the answers do not change)
 * and deletes the items while each is still there as read (same share id and multiplier). The
 * entries and the items commit together, so every assignment is in exactly one form at any
 * moment, and readers, which read both forms, give the same answer before, during and after.
 * A writer that read an item meanwhile fails its condition on it and reads again, finding the
 * entry; one that changed or removed it first makes the fold 'stale' (the plan keeps what was
 * folded so far: both forms side by side are a plan's normal state, and a rerun finishes).
 * The add bumps the plan's version, so a write that read the plan before (a move copies it
 * whole) goes stale too rather than write back the map as it was.
 *
 * Beside, the project check (a deleted project's sweep must not meet entries created behind
 * it: 'project_gone') and the feature head's count of feature deletes as read with the
 * features (`featureDeletes`): a feature deleted since would have its item folded after its
 * sweep read the plans, left as an entry no sweep looks for. The caller folds only features
 * it read as there. `folded`: the items folded before the outcome.
 */
export async function foldAssignmentItems(
  scope: ProjectScope,
  plan: Pick<PlanItem, 'planId' | 'assigned'>,
  layout: PlanLayout,
  items: PlanFeatureItem[],
  featureDeletes: number,
): Promise<{ outcome: 'folded' | 'stale' | 'project_gone'; folded: number }> {
  const { shareId, ...key } = scope;
  // The fallback date of an entry without its own: every item has its own.
  const now = new Date().toISOString();
  let hasMap = plan.assigned !== undefined;
  let folded = 0;
  for (let from = 0; from < items.length; from += ADD_BATCH) {
    const chunk = items.slice(from, from + ADD_BATCH);
    const outcome = await writeTransaction((entities) => [
      projectIsLive(entities, scope),
      featuresUnchanged(entities, scope, featureDeletes),
      addEntries(scope, plan.planId, layout, hasMap, chunk, now),
      ...chunk.map((item) =>
        entities.planFeature
          .delete({ ...key, planId: item.planId, featureId: item.featureId })
          .where(
            (attributes, { eq }) =>
              `${eq(attributes.shareId, shareId)} AND ${eq(attributes.multiplier, item.multiplier)}`,
          )
          .commit(),
      ),
    ]);
    if (!outcome.committed) {
      const [project] = outcome.reasons.map((reason) => reason.code === 'ConditionalCheckFailed');
      return { outcome: project ? 'project_gone' : 'stale', folded };
    }
    folded += chunk.length;
    hasMap = true;
  }
  return { outcome: 'folded', folded };
}

/**
 * Deletes the plan (where `layout` says it was read) and uncounts it in one transaction, then
 * sweeps its assignments.
 */
export const deletePlan = (key: ProjectKey, planId: number, layout: PlanLayout, recordedDelete?: RecordedDelete) =>
  deleteWithAssignments(key, { planId, layout }, recordedDelete);

type AssignmentWhere = Parameters<ReturnType<TransactionEntities['planFeature']['delete']>['where']>[0];

/**
 * Sets an assignment's multiplier, or removes it (`multiplier` null), with its change-log
 * entry, while its multiplier is the one read (If-Match: also guarded by `revision`). An
 * assignment the plan (as read, at `layout`) holds in its item is written there; one stored
 * as an item of its own, as before.
 */
export async function writeAssignment(
  scope: ProjectScope,
  plan: PlanItem,
  layout: PlanLayout,
  read: PlanFeatureItem,
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
      if (storedInPlan(plan, read.featureId)) {
        return [writeEntry(scope, read.planId, layout, read, multiplier)];
      }
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
