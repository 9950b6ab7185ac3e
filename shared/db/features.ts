import { featureNotFound, LimitExceededError, projectNotFound } from '#domain/errors.ts';
import { deleteAll } from './batch.ts';
import { isConditionalCheckFailed } from './errors.ts';
import { db } from './service.ts';
import { conditionFailedAt, writeTransaction } from './transactions.ts';
import type { FeatureItem, NewFeatureItem, ProjectKey } from './types.ts';

/**
 * Creates a feature and counts it on the project in one transaction, so `_count` is exact
 * and the per-project limit holds under concurrent creates.
 */
export async function insertFeature(item: NewFeatureItem, maxFeatures: number): Promise<void> {
  const key = { ownerId: item.ownerId, slug: item.slug };
  const outcome = await writeTransaction(({ project, feature }) => [
    project
      .patch(key)
      .add({ featureCount: 1 })
      .where(
        ({ deletingAt, featureCount }, { notExists, lt }) =>
          `${notExists(deletingAt)} AND ${lt(featureCount, maxFeatures)}`,
      )
      .commit({ response: 'all_old' }),
    feature.create(item).commit(),
  ]);
  if (outcome.committed) return;
  const current = outcome.reasons[0]?.item;
  if (conditionFailedAt(outcome, 0)) {
    if (!current || current.deletingAt) throw projectNotFound(key.slug);
    throw new LimitExceededError(`A project holds at most ${maxFeatures} features; delete one before adding another.`);
  }
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

/** Returns undefined when the feature does not exist. */
export async function patchFeature(
  key: ProjectKey,
  featureId: number,
  changes: FeatureChanges,
): Promise<FeatureItem | undefined> {
  try {
    const { data } = await db()
      .entities.feature.patch({ ...key, featureId })
      .set(changes)
      .go({ response: 'all_new' });
    return data as FeatureItem;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
}

/**
 * Deletes the feature and uncounts it in one transaction, then removes its assignments.
 * Every assignment write checks its feature inside its own transaction, so once the
 * delete has committed no new assignment of this feature can appear, and the strongly
 * consistent read that follows sees all that exist: none is left behind.
 */
export async function deleteFeature(key: ProjectKey, featureId: number): Promise<void> {
  const outcome = await writeTransaction(({ project, feature }) => [
    feature
      .delete({ ...key, featureId })
      .where(({ featureId: id }, { exists }) => exists(id))
      .commit(),
    project
      .patch(key)
      .subtract({ featureCount: 1 })
      .where(({ deletingAt }, { notExists }) => notExists(deletingAt))
      .commit(),
  ]);
  if (!outcome.committed) {
    if (conditionFailedAt(outcome, 1)) throw projectNotFound(key.slug);
    throw featureNotFound(featureId);
  }
  await removeAssignmentsOfFeature(key, featureId);
}

async function removeAssignmentsOfFeature(key: ProjectKey, featureId: number): Promise<void> {
  const { planFeature } = db().entities;
  const { data } = await planFeature.query
    .projectData(key)
    .where(({ featureId: id }, { eq }) => eq(id, featureId))
    .go({ pages: 'all', consistent: true });
  await deleteAll(
    planFeature,
    data.map((a) => ({ ...key, planId: a.planId, featureId: a.featureId })),
  );
}
