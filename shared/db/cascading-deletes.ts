// Deletes of what assignments name: a plan (its assignments are in its item) and a feature
// (its entries in every plan are swept after its transaction).
import type { NewChangeEntryItem } from './changes.ts';
import { isStorageBusy } from './contention.ts';
import { bumpPlan, countFeatureDelete, removeEntries } from './plan-assignments.ts';
import { freezeVersion, type NewPlanVersionItem, type PlanStep, stepActions } from './plan-versions.ts';
import { getProjectItem } from './projects.ts';
import { db } from './service.ts';
import { countedWrite } from './transactions.ts';
import type { ProjectKey, ProjectScope } from './types.ts';

/** A feature or a plan: what an assignment names. */
export type AssignmentParent = { featureId: number } | { planId: number };
type Missing<P extends AssignmentParent> = P extends { planId: number } ? 'plan_missing' : 'feature_missing';

/**
 * How a delete is recorded: its change-log entry, the version of the item it read (its
 * `before`), and the project revision to guard it with (If-Match), if any.
 */
export interface RecordedDelete {
  change: NewChangeEntryItem;
  version: number;
  revision: number | undefined;
  /** A plan's delete freezes the version its customers hold (shared/db/plan-versions.ts). */
  frozen?: NewPlanVersionItem;
  /** A feature's delete moves the version of each plan that has it. */
  plans?: PlanStep[];
}

/**
 * Deletes a feature or a plan and uncounts it in one transaction (with its change-log entry:
 * the cascade is one entry). A plan's assignments go with its item. A feature's delete counts
 * itself on the project's feature head in the same transaction, and every write that assigns
 * features checks that count in its own (plan-assignments.ts, featuresUnchanged): so once the
 * delete has committed no new assignment of it can appear, and the strongly consistent read
 * of the plans that follows sees all that exist: none is left behind.
 *
 * A feature's sweep runs also when the feature is already gone: a delete whose process died
 * between its transaction and the end of its sweep left entries that nothing else removes
 * (readers skip them, see the plan views), and the next delete of the same id finishes the
 * job. That delete still answers `…_missing`: the item went with the first.
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
  if (!project) return 'project_gone';
  const scope = { ...key, shareId: project.shareId };
  const outcome = await countedWrite({
    scope,
    counter: 'planId' in parent ? 'planCount' : 'featureCount',
    delta: -1,
    revision: recorded?.revision,
    changes: recorded ? [recorded.change] : [],
    actions: (entities) => {
      const { feature, plan } = entities;
      return [
        'planId' in parent
          ? plan
              .delete({ ...key, planId: parent.planId })
              .where(
                ({ planId, shareId, version }, operations) =>
                  `${operations.exists(planId)} AND ${operations.eq(shareId, scope.shareId)}${recorded ? ` AND ${operations.eq(version, recorded.version)}` : ''}`,
              )
              .commit()
          : feature
              .delete({ ...key, featureId: parent.featureId })
              .where(
                ({ featureId, shareId, version }, operations) =>
                  `${operations.exists(featureId)} AND ${operations.eq(shareId, scope.shareId)}${recorded ? ` AND ${operations.eq(version, recorded.version)}` : ''}`,
              )
              .commit(),
        // No assignment of the feature commits after this (plan-assignments.ts, featuresUnchanged).
        ...('planId' in parent ? [] : [countFeatureDelete(entities, scope)]),
        ...(recorded?.frozen ? [freezeVersion(entities, recorded.frozen)] : []),
        ...(recorded?.plans ?? []).flatMap(({ planId, step }) => [
          bumpPlan(scope, planId, step),
          ...stepActions(entities, step),
        ]),
      ];
    },
  });
  // A deleted project is swept whole by its own sweep.
  if (outcome === 'project_gone' || outcome === 'stale') return outcome;
  // A recorded delete read the item: its failed condition is a change since, read again.
  if (outcome !== 'committed' && recorded) return 'stale';
  try {
    if ('featureId' in parent) await sweepEntries(scope, parent.featureId);
  } catch (error) {
    // The delete has committed: answering "busy, nothing changed" would be false (and its
    // resend a 404). What is left is what a process that died here leaves: readers skip it,
    // and the next delete of this id or the project's sweep removes it.
    if (outcome !== 'committed' || !isStorageBusy(error)) throw error;
  }
  if (outcome === 'committed') return 'deleted';
  return ('planId' in parent ? 'plan_missing' : 'feature_missing') as Missing<P>;
}

/**
 * Removes the deleted feature's entries from every plan of the project, read in one strongly
 * consistent Query of the plans.
 */
async function sweepEntries(scope: ProjectScope, featureId: number): Promise<void> {
  const { shareId, ...key } = scope;
  const { data: plans } = await db()
    .entities.plan.query.projectData(key)
    .where((attributes, { eq }) => eq(attributes.shareId, shareId))
    .go({ pages: 'all', consistent: true });
  for (const holder of plans) {
    if (holder.assigned?.[String(featureId)] !== undefined) await removeEntries(scope, holder.planId, [featureId]);
  }
}
