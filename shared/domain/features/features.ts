import { limits } from '#contract/limits.ts';
import { deleteFeature as deleteFeatureItem, insertFeature, patchFeature } from '#db/features.ts';
import { allocateIds } from '#db/ids.ts';
import { getProjectItem } from '#db/projects.ts';
import type { ProjectKey } from '#db/types.ts';
import { countRefused, featureNotFound, projectNotFound } from '../errors.ts';
import { definedOnly } from '../fields.ts';
import { loadFeatures } from '../projects/load.ts';
import { slugPattern } from '../projects/slug.ts';
import { type CreateFeatureInput, type FeatureView, featureDefaults, type UpdateFeatureInput } from './schemas.ts';
import { toFeatureView } from './view.ts';

/** One Query of the feature head and the features, however many plans the project has. */
export async function listFeatures(key: ProjectKey): Promise<FeatureView[]> {
  const { features } = await loadFeatures(key);
  return features.sort((a, b) => a.featureId - b.featureId).map(toFeatureView);
}

export async function createFeature(key: ProjectKey, input: CreateFeatureInput): Promise<FeatureView> {
  // Only the project item is needed (it must exist, and its share id goes on the feature):
  // one GetItem, not the whole partition. The create transaction re-checks it anyway.
  const project = slugPattern.test(key.slug) ? await getProjectItem(key) : undefined;
  if (!project || project.deletingAt) throw projectNotFound(key.slug);
  const [featureId] = await allocateIds('feature');
  if (featureId === undefined) throw new Error('No feature id allocated');
  const now = new Date().toISOString();
  const item = {
    ...featureDefaults,
    ...definedOnly(input),
    name: input.name,
    basePrice: input.basePrice,
    ...key,
    shareId: project.shareId,
    featureId,
    createdAt: now,
    updatedAt: now,
  };
  const outcome = await insertFeature(item, limits.featuresPerProject);
  if (outcome !== 'created') throw countRefused(outcome, key.slug, limits.featuresPerProject, 'features');
  return toFeatureView(item);
}

/** Partial update: only fields present change. */
export async function updateFeature(
  key: ProjectKey,
  featureId: number,
  input: UpdateFeatureInput,
): Promise<FeatureView> {
  const changes = definedOnly(input);
  if (Object.keys(changes).length === 0) {
    const { features } = await loadFeatures(key);
    const feature = features.find((f) => f.featureId === featureId);
    if (!feature) throw featureNotFound(featureId);
    return toFeatureView(feature);
  }
  const updated = await patchFeature(key, featureId, { ...changes, updatedAt: new Date().toISOString() });
  if (updated === 'not_found') {
    await loadFeatures(key); // says "project not found" when that is the reason
    throw featureNotFound(featureId);
  }
  return toFeatureView(updated);
}

/**
 * Deletes the feature and removes it from every plan of the project. Deleting a feature
 * that is already gone is a 404, after removing what a delete cut short left of its
 * assignments.
 */
export async function deleteFeature(key: ProjectKey, featureId: number): Promise<void> {
  const outcome = await deleteFeatureItem(key, featureId);
  if (outcome === 'project_gone') throw projectNotFound(key.slug);
  if (outcome === 'feature_missing') throw featureNotFound(featureId);
}
