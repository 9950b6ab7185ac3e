import { limits } from '#contract/limits.ts';
import { deleteFeature as deleteFeatureItem, insertFeature, updateFeatureItem } from '#db/features.ts';
import { allocateIds } from '#db/ids.ts';
import { getProjectItem } from '#db/projects.ts';
import type { FeatureItem, ProjectKey } from '#db/types.ts';
import { childChange } from '../changes.ts';
import { countRefused, featureNotFound, projectNotFound } from '../errors.ts';
import { definedOnly } from '../fields.ts';
import { loadFeatures, loadProject } from '../projects/load.ts';
import { slugPattern } from '../projects/slug.ts';
import { featureSteps } from '../versions/bump.ts';
import { checkIfMatch, untilWritten, type Writer } from '../versions.ts';
import { type CreateFeatureInput, type FeatureView, featureDefaults, type UpdateFeatureInput } from './schemas.ts';
import { toFeatureView } from './view.ts';

/** One Query of the feature head and the features, however many plans the project has. */
export async function listFeatures(key: ProjectKey): Promise<FeatureView[]> {
  const { features } = await loadFeatures(key);
  return features.sort((a, b) => a.featureId - b.featureId).map(toFeatureView);
}

export async function createFeature(key: ProjectKey, input: CreateFeatureInput, writer: Writer): Promise<FeatureView> {
  // Only the project item is needed (it must exist, and its share id goes on the feature):
  // one GetItem, not the whole partition. The create transaction re-checks it anyway.
  const project = slugPattern.test(key.slug) ? await getProjectItem(key) : undefined;
  if (!project) throw projectNotFound(key.slug);
  const [featureId] = await allocateIds('feature');
  if (featureId === undefined) throw new Error('No feature id allocated');
  const now = new Date().toISOString();
  const item: FeatureItem = {
    ...featureDefaults,
    ...definedOnly(input),
    name: input.name,
    basePrice: input.basePrice,
    ...key,
    shareId: project.shareId,
    featureId,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  const entry = childChange(project.projectId, writer, { type: 'feature', id: featureId }, null, item);
  const outcome = await insertFeature(item, limits.featuresPerProject, entry);
  if (outcome !== 'created') throw countRefused(outcome, key.slug, limits.featuresPerProject, 'features');
  return toFeatureView(item);
}

/** The caller's feature, as loadFeatures finds it: 404 for a missing project or feature. */
async function readFeature(key: ProjectKey, featureId: number) {
  const { features, ...rest } = await loadFeatures(key);
  const feature = features.find((f) => f.featureId === featureId);
  if (!feature) throw featureNotFound(featureId);
  return { ...rest, feature };
}

/** The feature fields that change what a plan grants (lifecycle.md §1). */
const pricedFeatureFields = new Set(['isCountable', 'featureType', 'usageCount', 'condition']);

/**
 * Partial update: only fields present change. With If-Match, only while it names the feature as
 * it is; no project revision guard (nor on a delete): the feature is its own item, so the write's
 * condition on its version makes the check and the write one step, and writes elsewhere in the
 * project cannot keep it from committing.
 */
export async function updateFeature(
  key: ProjectKey,
  featureId: number,
  input: UpdateFeatureInput,
  writer: Writer,
): Promise<FeatureView> {
  return untilWritten('feature', writer, async () => {
    const { projectId, scope, feature } = await readFeature(key, featureId);
    checkIfMatch(writer.ifMatch, toFeatureView(feature));
    const changed = Object.entries(definedOnly(input)).filter(
      ([field, value]) => feature[field as keyof FeatureItem] !== value,
    );
    if (changed.length === 0) return toFeatureView(feature);
    const changes = { ...Object.fromEntries(changed), updatedAt: new Date().toISOString() };
    const after: FeatureItem = { ...feature, ...changes, version: feature.version + 1 };
    const entry = childChange(projectId, writer, { type: 'feature', id: featureId }, feature, after);
    // A change of what the feature grants moves the version of every plan that has it.
    const priced = changed.some(([field]) => pricedFeatureFields.has(field));
    const plans = priced ? featureSteps(await loadProject(key), featureId, after, changes.updatedAt) : [];
    const outcome = await updateFeatureItem(scope, feature, changes, entry, undefined, plans);
    if (outcome === 'project_gone') throw projectNotFound(key.slug);
    return outcome === 'updated' ? toFeatureView(after) : 'stale';
  });
}

/**
 * Deletes the feature and removes it from every plan of the project. Deleting a feature
 * that is already gone is a 404, after removing what a delete cut short left of its
 * assignments.
 */
export async function deleteFeature(key: ProjectKey, featureId: number, writer: Writer): Promise<void> {
  await untilWritten('feature', writer, async () => {
    // The whole project: the plans that have the feature move their version with its delete.
    const partition = await loadProject(key);
    const { projectId } = partition.project;
    const feature = partition.features.find((f) => f.featureId === featureId);
    if (feature) checkIfMatch(writer.ifMatch, toFeatureView(feature));
    const recorded = feature && {
      change: childChange(projectId, writer, { type: 'feature', id: featureId }, feature, null),
      version: feature.version,
      revision: undefined,
      plans: featureSteps(partition, featureId, null, new Date().toISOString()),
    };
    const outcome = await deleteFeatureItem(key, featureId, recorded);
    if (outcome === 'project_gone') throw projectNotFound(key.slug);
    if (outcome === 'feature_missing') throw featureNotFound(featureId);
    return outcome === 'stale' ? 'stale' : 'deleted';
  });
}
