import { deleteAll } from './batch.ts';
import { isConditionalCheckFailed } from './errors.ts';
import { db } from './service.ts';
import type { NewProjectItem, ProjectItem, ProjectKey, ProjectPartition } from './types.ts';

type PartitionData = Omit<ProjectPartition, 'project'> & { project: ProjectItem[] };

function toPartition(data: PartitionData): ProjectPartition | undefined {
  const [project] = data.project;
  if (!project) return undefined;
  return { project, features: data.features ?? [], plans: data.plans ?? [], planFeatures: data.planFeatures ?? [] };
}

/** API v1 reads: the whole project in one Query on the table (strongly consistent). */
export async function readProjectPartition(key: ProjectKey): Promise<ProjectPartition | undefined> {
  const { data } = await db()
    .collections.projectData({ ownerId: key.ownerId, slug: key.slug })
    .go({ pages: 'all', consistent: true });
  return toPartition({
    project: data.project,
    features: data.feature,
    plans: data.plan,
    planFeatures: data.planFeature,
  });
}

/** Public reads: the whole project in one Query on the byShareId index. */
export async function readSharePartition(shareId: string): Promise<ProjectPartition | undefined> {
  const { data } = await db().collections.share({ shareId }).go({ pages: 'all' });
  return toPartition({
    project: data.project,
    features: data.feature,
    plans: data.plan,
    planFeatures: data.planFeature,
  });
}

/** An owner's projects, one Query on the byOwner index, in id order. */
export async function listOwnerProjects(ownerId: string): Promise<ProjectItem[]> {
  const { data } = await db().entities.project.query.byOwner({ ownerId }).go({ pages: 'all' });
  return data;
}

export async function getProjectItem(key: ProjectKey): Promise<ProjectItem | undefined> {
  const { data } = await db().entities.project.get(key).go({ consistent: true });
  return data ?? undefined;
}

/** Creates the project unless the owner already has one with this slug. */
export async function insertProject(item: NewProjectItem): Promise<ProjectItem | 'slug_taken'> {
  try {
    const { data } = await db().entities.project.create(item).go();
    return data;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return 'slug_taken';
    throw error;
  }
}

export type ProjectChanges = Partial<
  Pick<
    ProjectItem,
    | 'name'
    | 'description'
    | 'pricingPageDescription'
    | 'currency'
    | 'annualDiscount'
    | 'annualDiscountEnabled'
    | 'isActive'
    | 'checkoutSuccessUrl'
    | 'checkoutCancelUrl'
    | 'checkoutTestSuccessUrl'
    | 'checkoutTestCancelUrl'
    | 'theme'
    | 'paymentKeySealed'
    | 'paymentsMode'
  >
> & { updatedAt: string };

export type UrlField = 'checkoutSuccessUrl' | 'checkoutCancelUrl' | 'checkoutTestSuccessUrl' | 'checkoutTestCancelUrl';
/** Attributes an update can remove: absent reads back as null. */
export type RemovableField = UrlField | 'paymentKeySealed' | 'paymentsMode';

/**
 * Writes a read-modify-write change, guarded by the version the caller read. Fields set
 * to null are removed (absent reads back as null).
 */
export async function updateProjectItem(
  key: ProjectKey,
  expectedVersion: number,
  set: ProjectChanges,
  remove: RemovableField[],
): Promise<ProjectItem | 'stale'> {
  try {
    let update = db().entities.project.patch(key).set(set).add({ version: 1 });
    if (remove.length > 0) update = update.remove(remove);
    const { data } = await update
      .where(
        ({ version, deletingAt }, { eq, notExists }) => `${eq(version, expectedVersion)} AND ${notExists(deletingAt)}`,
      )
      .go({ response: 'all_new' });
    return data as ProjectItem;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return 'stale';
    throw error;
  }
}

/**
 * First step of a delete: from here on the project reads as missing and nothing can be
 * created in it. Returns false when there is no project (a repeated mark is allowed, so an
 * interrupted delete can be finished).
 */
export async function markProjectDeleting(key: ProjectKey): Promise<boolean> {
  try {
    await db().entities.project.patch(key).set({ deletingAt: new Date().toISOString() }).go();
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/**
 * Deletes every item of a project marked as deleting, whatever their number.
 * Features and plans go first: every plan-feature write checks its plan and feature in
 * the same transaction, so once they are gone no new assignment can appear, and the
 * second, strongly consistent read sees every one there is. The project item goes last, so
 * a delete cut short stays visible as "deleting" and the next DELETE finishes it.
 */
export async function sweepProject(key: ProjectKey): Promise<void> {
  const { feature, plan, planFeature, project } = db().entities;
  const first = await readProjectPartition(key);
  if (!first) return;
  await Promise.all([
    deleteAll(
      feature,
      first.features.map((f) => ({ ...key, featureId: f.featureId })),
    ),
    deleteAll(
      plan,
      first.plans.map((p) => ({ ...key, planId: p.planId })),
    ),
  ]);
  for (let pass = 0; ; pass++) {
    const rest = await readProjectPartition(key);
    if (!rest) return;
    const leftovers = rest.features.length + rest.plans.length + rest.planFeatures.length;
    if (leftovers === 0) break;
    if (pass >= 5) throw new Error(`Project sweep still finds ${leftovers} items after ${pass} passes`);
    await Promise.all([
      deleteAll(
        feature,
        rest.features.map((f) => ({ ...key, featureId: f.featureId })),
      ),
      deleteAll(
        plan,
        rest.plans.map((p) => ({ ...key, planId: p.planId })),
      ),
      deleteAll(
        planFeature,
        rest.planFeatures.map((a) => ({ ...key, planId: a.planId, featureId: a.featureId })),
      ),
    ]);
  }
  await project.delete(key).go();
}
