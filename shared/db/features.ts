import { deleteWithAssignments } from './assignments.ts';
import { itemOr } from './errors.ts';
import { db } from './service.ts';
import { countedWrite } from './transactions.ts';
import type { FeatureItem, NewFeatureItem, ProjectKey } from './types.ts';

/**
 * Creates a feature and counts it on the project in one transaction, so `_count` is exact
 * and the per-project limit holds under concurrent creates.
 */
export async function insertFeature(
  item: NewFeatureItem,
  maxFeatures: number,
): Promise<'created' | 'project_gone' | 'limit_reached'> {
  const outcome = await countedWrite({
    scope: { ownerId: item.ownerId, slug: item.slug, shareId: item.shareId },
    counter: 'featureCount',
    delta: 1,
    max: maxFeatures,
    actions: ({ feature }) => [feature.create(item).commit()],
  });
  if (typeof outcome === 'string') return outcome === 'committed' ? 'created' : outcome;
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

/** 'not_found' when the feature does not exist. */
export const patchFeature = (key: ProjectKey, featureId: number, changes: FeatureChanges) =>
  itemOr(
    db()
      .entities.feature.patch({ ...key, featureId })
      .set(changes)
      .go({ response: 'all_new' }),
    'not_found',
  );

/** Deletes the feature and uncounts it in one transaction, then removes its assignments. */
export const deleteFeature = (key: ProjectKey, featureId: number) => deleteWithAssignments(key, { featureId });
