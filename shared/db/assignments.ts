// Plan features (assignments): how they are written beside the features and plans they
// join, and swept when either is deleted.
import { deleteAll } from './batch.ts';
import { type NewChangeEntryItem, removeChanges } from './changes.ts';
import { isStorageBusy } from './contention.ts';
import { atPlanKey, type PlanLayout } from './plan-keys.ts';
import { getProjectItem } from './projects.ts';
import { db } from './service.ts';
import { countedWrite, type TransactionEntities } from './transactions.ts';
import type { NewPlanFeatureItem, ProjectKey, ProjectScope } from './types.ts';
import { versionIs } from './versions.ts';

/** An assignment to write: the ids are allocated by the caller. */
export interface NewAssignment {
  featureId: number;
  multiplier: number;
  planFeatureId: number;
}

/**
 * Every assignment is written in a transaction together with a check that its feature (and,
 * for an existing plan, the plan) still exists. That pairing is what lets feature and plan
 * deletes sweep assignments afterwards without missing one. Two actions per assignment, and
 * a third, its change-log entry (after every assignment's pair), when it is recorded on its
 * own (added to an existing plan).
 */
export const PER_ASSIGNMENT = 2;
export const PER_RECORDED_ASSIGNMENT = 3;

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

/** A feature an assignment names is gone (or was never in this project). */
export interface MissingFeature {
  missingFeatureId: number;
}

export function assignmentActions(
  entities: TransactionEntities,
  scope: ProjectScope,
  planId: number,
  batch: NewAssignment[],
  createdAt: string,
) {
  const key = { ownerId: scope.ownerId, slug: scope.slug };
  return batch.flatMap((a) => [
    entities.feature
      .check({ ...key, featureId: a.featureId })
      .where(({ featureId, shareId }, { exists, eq }) => `${exists(featureId)} AND ${eq(shareId, scope.shareId)}`)
      .commit(),
    entities.planFeature.create(assignmentItem(scope, planId, a, createdAt)).commit(),
  ]);
}

/**
 * Which assignments of a batch a cancelled transaction points at, and why. `failedAt`
 * counts positions from the batch's first action.
 */
export function failedAssignments(failedAt: number[], batch: NewAssignment[]) {
  const stride = PER_ASSIGNMENT;
  const at = (i: number) => batch[Math.floor(i / stride)] as NewAssignment;
  const missing = failedAt.find((i) => i >= 0 && i % stride === 0);
  return {
    missing: missing === undefined ? undefined : { missingFeatureId: at(missing).featureId },
    alreadyAssigned: failedAt.filter((i) => i >= 0 && i % stride === 1).map(at),
  };
}

export async function removeAssignments(key: ProjectKey, planId: number, featureIds: number[]): Promise<void> {
  await deleteAll(
    db().entities.planFeature,
    featureIds.map((featureId) => ({ ...key, planId, featureId })),
  );
}

/**
 * Runs `write`, which records in `written` the assignments it committed, and removes those
 * again unless it ends in `success` (also when it throws, e.g. a 503 part way), with the
 * change-log entries `entryOf` gives for them (committed beside them), so no entry outlives
 * its undone write.
 */
export async function undoUnless<T>(
  success: (result: T) => boolean,
  key: ProjectKey,
  planId: number,
  write: (written: NewAssignment[]) => Promise<T>,
  entryOf: (assignment: NewAssignment) => NewChangeEntryItem | undefined = () => undefined,
): Promise<T> {
  const written: NewAssignment[] = [];
  let succeeded = false;
  try {
    const result = await write(written);
    succeeded = success(result);
    return result;
  } finally {
    if (!succeeded) {
      await removeAssignments(
        key,
        planId,
        written.map((a) => a.featureId),
      );
      await removeChanges(written.flatMap((a) => entryOf(a) ?? []));
    }
  }
}

/** A feature or a plan: what an assignment names, and what deleting sweeps assignments of. */
export type AssignmentParent = { featureId: number } | { planId: number; layout?: PlanLayout };
type Missing<P extends AssignmentParent> = P extends { planId: number } ? 'plan_missing' : 'feature_missing';

/**
 * How a delete is recorded: its change-log entry, the version of the item it read (its
 * `before`), and the project revision to guard it with (If-Match), if any.
 */
export interface RecordedDelete {
  change: NewChangeEntryItem;
  version: number | undefined;
  revision: number | undefined;
}

/**
 * Deletes a feature or a plan and uncounts it in one transaction (with its change-log entry:
 * the cascade is one entry), then removes the
 * assignments that name it. Every assignment write checks its feature (and an existing
 * plan) inside its own transaction, so once the delete has committed no new assignment of
 * it can appear, and the strongly consistent read that follows sees all that exist: none
 * is left behind.
 *
 * The sweep runs also when the feature or plan is already gone: a delete whose process
 * died between its transaction and the end of its sweep left assignments that nothing else
 * removes (readers skip them, see the plan views), and the next delete of the same id
 * finishes the job. That delete still answers `…_missing`: the item went with the first.
 * 'stale': the item (or, with a guard, the project) changed since it was read.
 */
export async function deleteWithAssignments<P extends AssignmentParent>(
  key: ProjectKey,
  parent: P,
  recorded?: RecordedDelete,
): Promise<'deleted' | 'project_gone' | 'stale' | Missing<P>> {
  // The share id tells this project's items from those a deleted project with the same slug
  // left in the partition for its sweep: those are not this project's to delete or uncount.
  const project = await getProjectItem(key);
  if (!project || project.deletingAt) return 'project_gone';
  const scope = { ...key, shareId: project.shareId };
  const ours = { shareId: project.shareId };
  const read = recorded ? { version: recorded.version } : undefined;
  const outcome = await countedWrite({
    scope,
    counter: 'planId' in parent ? 'planCount' : 'featureCount',
    delta: -1,
    revision: recorded?.revision,
    changes: recorded ? [recorded.change] : [],
    actions: ({ feature, plan }) => [
      'planId' in parent
        ? atPlanKey(
            plan
              .delete({ ...key, planId: parent.planId })
              .where(
                ({ planId, shareId, version }, operations) =>
                  `${operations.exists(planId)} AND ${operations.eq(shareId, ours.shareId)}${read ? ` AND ${versionIs(read.version, version, operations)}` : ''}`,
              )
              .commit(),
            parent.planId,
            parent.layout ?? 'prefix',
          )
        : feature
            .delete({ ...key, featureId: parent.featureId })
            .where(
              ({ featureId, shareId, version }, operations) =>
                `${operations.exists(featureId)} AND ${operations.eq(shareId, ours.shareId)}${read ? ` AND ${versionIs(read.version, version, operations)}` : ''}`,
            )
            .commit(),
    ],
  });
  // A deleted project is swept whole by its own sweep.
  if (outcome === 'project_gone' || outcome === 'stale') return outcome;
  // A recorded delete read the item: its failed condition is a change since, read again.
  if (outcome !== 'committed' && recorded) return 'stale';
  try {
    await deleteAll(db().entities.planFeature, await assignmentsOf(scope, parent));
  } catch (error) {
    // The delete has committed: answering "busy, nothing changed" would be false (and its
    // resend a 404). What is left is what a process that died here leaves: readers skip it,
    // and the next delete of this id or the project's sweep removes it.
    if (outcome !== 'committed' || !isStorageBusy(error)) throw error;
  }
  if (outcome === 'committed') return 'deleted';
  return ('planId' in parent ? 'plan_missing' : 'feature_missing') as Missing<P>;
}

/** A plan's assignments are a key prefix; a feature's are filtered out of the partition. */
async function assignmentsOf({ shareId: ours, ...key }: ProjectScope, parent: AssignmentParent) {
  const { planFeature } = db().entities;
  const options = { pages: 'all', consistent: true } as const;
  const { data } =
    'planId' in parent
      ? await planFeature.query
          .projectData({ ...key, planId: parent.planId })
          .where(({ shareId }, { eq }) => eq(shareId, ours))
          .go(options)
      : await planFeature.query
          .projectData(key)
          .where(({ featureId, shareId }, { eq }) => `${eq(featureId, parent.featureId)} AND ${eq(shareId, ours)}`)
          .go(options);
  return data;
}
