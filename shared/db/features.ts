import { deleteWithAssignments, type RecordedDelete } from './cascading-deletes.ts';
import type { NewChangeEntryItem } from './changes.ts';
import { bumpPlan } from './plan-assignments.ts';
import { type PlanStep, stepActions } from './plan-versions.ts';
import { countedWrite } from './transactions.ts';
import type { FeatureItem, NewFeatureItem, ProjectKey, ProjectScope } from './types.ts';

/**
 * Creates a feature and counts it on the project in one transaction, so `_count` is exact
 * and the per-project limit holds under concurrent creates; its change-log entry goes in it too.
 */
export async function insertFeature(
  item: NewFeatureItem,
  maxFeatures: number,
  change: NewChangeEntryItem,
): Promise<'created' | 'project_gone' | 'limit_reached'> {
  const outcome = await countedWrite({
    scope: { ownerId: item.ownerId, slug: item.slug, shareId: item.shareId },
    counter: 'featureCount',
    delta: 1,
    max: maxFeatures,
    actions: ({ feature }) => [feature.create(item).commit()],
    changes: [change],
  });
  if (outcome === 'committed') return 'created';
  if (outcome === 'project_gone' || outcome === 'limit_reached') return outcome;
  throw new Error(`Feature id ${item.featureId} already exists`);
}

export type FeatureChanges = Partial<
  Pick<
    FeatureItem,
    | 'name'
    | 'description'
    | 'basePrice'
    | 'featureType'
    | 'isCountable'
    | 'usageCount'
    | 'condition'
    | 'countPrice'
    | 'eventAggregationMethod'
  >
> & { updatedAt: string };

/**
 * Writes the changes of a feature read at `read.version`, with its change-log entry, in one
 * transaction; guarded by the project's `revision` when given (If-Match). 'stale' when the
 * feature or the project changed since the read, 'project_gone' when the project went.
 */
export async function updateFeatureItem(
  scope: ProjectScope,
  read: FeatureItem,
  changes: FeatureChanges,
  change: NewChangeEntryItem,
  revision: number | undefined,
  // The plans whose priced content the change moves: each moves its version in this transaction.
  plans: PlanStep[] = [],
): Promise<'updated' | 'stale' | 'project_gone'> {
  const { shareId: _share, ...key } = scope;
  const outcome = await countedWrite({
    scope,
    revision,
    actions: (entities) => [
      entities.feature
        .patch({ ...key, featureId: read.featureId })
        .set(changes)
        .add({ version: 1 })
        .where((attributes, operations) => operations.eq(attributes.version, read.version))
        .commit(),
      ...plans.flatMap(({ planId, step }) => [bumpPlan(scope, planId, step), ...stepActions(entities, step)]),
    ],
    changes: [change],
  });
  if (outcome === 'committed') return 'updated';
  return outcome === 'project_gone' ? outcome : 'stale';
}

/** Deletes the feature and uncounts it in one transaction, then removes its assignments. */
export const deleteFeature = (key: ProjectKey, featureId: number, recorded?: RecordedDelete) =>
  deleteWithAssignments(key, { featureId }, recorded);
