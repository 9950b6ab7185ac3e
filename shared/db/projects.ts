import { deleteAll } from './batch.ts';
import { sweepCustomers } from './customers.ts';
import { ifConditionFails, itemOr } from './errors.ts';
import { db, type PricingService } from './service.ts';
import type { NewProjectItem, ProjectItem, ProjectKey } from './types.ts';

/**
 * What one Query of a project's collection returns: ElectroDB keys the items by entity
 * alias, and gives every member entity a list (empty when it has no item).
 */
type ProjectData = Awaited<ReturnType<ReturnType<PricingService['collections']['projectData']>['go']>>['data'];
/** The entities of the `projectData` collection: the project and everything in it. */
export type ProjectEntity = keyof ProjectData;
type ChildAlias = Exclude<ProjectEntity, 'project'>;

/**
 * Everything stored for one project, as one Query returns it: the project item, and the
 * items of every other entity of the `projectData` collection under its alias plus "s"
 * (`features`, `plans`, `planFeatures`). An entity that joins the collection appears here
 * without an edit.
 */
export type ProjectPartition = { project: ProjectItem } & { [A in ChildAlias as `${A}s`]: ProjectData[A] };

function toPartition(data: { project: ProjectItem[] } & Record<ChildAlias, unknown[]>): ProjectPartition | undefined {
  const {
    project: [project],
    ...children
  } = data;
  if (!project) return undefined;
  const lists = Object.entries(children).map(([alias, items]) => [`${alias}s`, items]);
  return { project, ...Object.fromEntries(lists) } as ProjectPartition;
}

/** API v1 reads: the whole project in one Query on the table (strongly consistent). */
export async function readProjectPartition(key: ProjectKey): Promise<ProjectPartition | undefined> {
  const { data } = await db()
    .collections.projectData({ ownerId: key.ownerId, slug: key.slug })
    .go({ pages: 'all', consistent: true });
  return toPartition(data);
}

/** Public reads: the whole project in one Query on the byShareId index. */
export async function readSharePartition(shareId: string): Promise<ProjectPartition | undefined> {
  const { data } = await db().collections.share({ shareId }).go({ pages: 'all' });
  return toPartition(data);
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
  return itemOr(db().entities.project.create(item).go(), 'slug_taken');
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
    | 'webhookSecretSealed'
  >
> & { updatedAt: string };

export type UrlField = 'checkoutSuccessUrl' | 'checkoutCancelUrl' | 'checkoutTestSuccessUrl' | 'checkoutTestCancelUrl';
/** Attributes an update can remove: absent reads back as null. */
export type RemovableField = UrlField | 'paymentKeySealed' | 'paymentsMode' | 'webhookSecretSealed';

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
  let update = db().entities.project.patch(key).set(set).add({ version: 1 });
  if (remove.length > 0) update = update.remove(remove);
  const guarded = update.where(
    ({ version, deletingAt }, { eq, notExists }) => `${eq(version, expectedVersion)} AND ${notExists(deletingAt)}`,
  );
  return itemOr(guarded.go({ response: 'all_new' }), 'stale');
}

/**
 * First step of a delete: from here on the project reads as missing and nothing can be
 * created in it. 'not_found' when there is no project (a repeated mark is allowed, so an
 * interrupted delete can be finished).
 */
export async function markProjectDeleting(key: ProjectKey): Promise<'marked' | 'not_found'> {
  const mark = db().entities.project.patch(key).set({ deletingAt: new Date().toISOString() }).go();
  return ifConditionFails(
    mark.then(() => 'marked' as const),
    'not_found',
  );
}

const MAX_SWEEP_PASSES = 6;

/** Deletes a batch of any member entity's items: ElectroDB takes each key out of its item. */
type AnyEntity = Parameters<typeof deleteAll<unknown>>[0];

/**
 * Deletes every item of a project marked as deleting, whatever their number, whatever
 * entities its collection holds: each pass deletes every child item one strongly
 * consistent Query finds, until a Query finds only the project item, which goes last.
 *
 * Why no item is left behind: once the project is marked, every child write is refused,
 * because each one checks in its own transaction either the project (feature and plan
 * creates check `deletingAt`) or a parent that itself can no longer be created (every
 * plan-feature write checks its plan and its feature). So after a pass has deleted the
 * parents, a later pass sees every child there will ever be. A new entity of the
 * collection must keep that rule. The project item going last means a delete cut short
 * stays visible as "deleting", and the next DELETE finishes it.
 */
export async function sweepProject(key: ProjectKey): Promise<void> {
  const { entities, collections } = db();
  const { ownerId, slug } = key;
  let projectId: number | undefined;
  for (let pass = 0; ; pass++) {
    const { data } = await collections.projectData({ ownerId, slug }).go({ pages: 'all', consistent: true });
    if (data.project.length === 0) return;
    projectId = data.project[0]?.projectId;
    const children = (Object.keys(data) as (keyof ProjectData)[])
      .filter((alias): alias is ChildAlias => alias !== 'project')
      .map((alias) => ({ entity: entities[alias] as AnyEntity, items: data[alias] as unknown[] }))
      .filter(({ items }) => items.length > 0);
    if (children.length === 0) break;
    if (pass >= MAX_SWEEP_PASSES) {
      const left = children.reduce((sum, { items }) => sum + items.length, 0);
      throw new Error(`Project sweep still finds ${left} items after ${pass} passes`);
    }
    await Promise.all(children.map(({ entity, items }) => deleteAll(entity, items)));
  }
  // Items of the project kept outside its partition; their writes check the mark too.
  if (projectId !== undefined) await sweepCustomers(projectId);
  await entities.project.delete({ ownerId, slug }).go();
}
