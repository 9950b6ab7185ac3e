import { changeAction, type NewChangeEntryItem } from './changes.ts';
import { db, type PricingService } from './service.ts';
import { writeTransaction } from './transactions.ts';
import type { NewProjectItem, ProjectItem, ProjectKey } from './types.ts';
import { versionIs } from './versions.ts';

/**
 * What one Query of a project's collection returns: ElectroDB keys the items by entity
 * alias, and gives every member entity a list (empty when it has no item).
 */
type ProjectData = Awaited<ReturnType<ReturnType<PricingService['collections']['projectData']>['go']>>['data'];
/** The entities of the `projectData` collection: the project and everything in it. */
export type ProjectEntity = keyof ProjectData;
type ChildAlias = Exclude<ProjectEntity, 'project' | 'featureHead'>;

/**
 * Everything stored for one project, as one Query returns it: the project item, and the
 * items of every other entity of the `projectData` collection under its alias plus "s"
 * (`features`, `plans`, `planFeatures`). An entity that joins the collection appears here
 * without an edit; the feature head (the project item's stand-in for the prefix reads of
 * shared/db/project-parts.ts) says nothing the project item does not, and is left out.
 */
export type ProjectPartition = { project: ProjectItem } & { [A in ChildAlias as `${A}s`]: ProjectData[A] };

function toPartition(
  data: { project: ProjectItem[]; featureHead: unknown[] } & Record<ChildAlias, unknown[]>,
): ProjectPartition | undefined {
  const {
    project: [project],
    featureHead: _head,
    ...children
  } = data;
  if (!project) return undefined;
  // A deleted project's items stay in the partition until swept, and a new project may take
  // its slug (its partition) at once: only the items that carry this project's share id are its own.
  const lists = Object.entries(children).map(([alias, items]) => [
    `${alias}s`,
    (items as { shareId: string }[]).filter((item) => item.shareId === project.shareId),
  ]);
  return { project, ...Object.fromEntries(lists) } as ProjectPartition;
}

/** API v1 reads: the whole project in one Query on the table (strongly consistent). */
export async function readProjectPartition(key: ProjectKey): Promise<ProjectPartition | undefined> {
  const { data } = await db()
    .collections.projectData({ ownerId: key.ownerId, slug: key.slug })
    .go({ pages: 'all', consistent: true });
  return toPartition(data);
}

/**
 * The first page (up to 1 MB) of the Query `readProjectPartition` makes: the whole project
 * when it fits in that page, else 'larger', and no more pages are read.
 */
export async function readSmallProjectPartition(
  key: ProjectKey,
): Promise<{ partition: ProjectPartition | undefined } | 'larger'> {
  const { data, cursor } = await db()
    .collections.projectData({ ownerId: key.ownerId, slug: key.slug })
    .go({ pages: 1, consistent: true });
  return cursor ? 'larger' : { partition: toPartition(data) };
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

/**
 * One page of an owner's projects with ids above `afterId`, in id order: one Query on the
 * byOwner index. `more` says whether the index holds more after the page.
 */
export async function listOwnerProjectsAfter(
  ownerId: string,
  afterId: number,
  count: number,
): Promise<{ items: ProjectItem[]; more: boolean }> {
  const { data, cursor } = await db()
    .entities.project.query.byOwner({ ownerId })
    .gt({ projectId: afterId })
    .go({ limit: count });
  return { items: data, more: cursor !== null };
}

export async function getProjectItem(key: ProjectKey): Promise<ProjectItem | undefined> {
  const { data } = await db().entities.project.get(key).go({ consistent: true });
  return data ?? undefined;
}

/**
 * Creates the project, with its first change-log entry in the same transaction, unless the
 * owner already has one with this slug.
 */
export async function insertProject(
  item: NewProjectItem,
  change: NewChangeEntryItem,
): Promise<ProjectItem | 'slug_taken'> {
  const created = { featureCount: 0, planCount: 0, version: 1, revision: 1, ...item };
  const outcome = await writeTransaction((entities) => [
    entities.project.create(created).commit(),
    changeAction(entities, change),
  ]);
  return outcome.committed ? created : 'slug_taken';
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
    | 'signupUrl'
    | 'theme'
    | 'paymentKeySealed'
    | 'paymentsMode'
    | 'webhookSecretSealed'
  >
> & { updatedAt: string };

export type UrlField =
  | 'checkoutSuccessUrl'
  | 'checkoutCancelUrl'
  | 'checkoutTestSuccessUrl'
  | 'checkoutTestCancelUrl'
  | 'signupUrl';
/** Attributes an update can remove: absent reads back as null. */
export type RemovableField = UrlField | 'paymentKeySealed' | 'paymentsMode' | 'webhookSecretSealed';

/**
 * Writes a read-modify-write change with its change-log entry, in one transaction guarded by
 * the version the caller read, and by the project's revision when given (If-Match). Fields
 * set to null are removed (absent reads back as null). 'stale' when either moved, or the
 * project went.
 */
export async function updateProjectItem(
  key: ProjectKey,
  read: Pick<ProjectItem, 'version' | 'revision'>,
  set: ProjectChanges,
  remove: RemovableField[],
  change: NewChangeEntryItem,
  revision: number | undefined,
): Promise<'updated' | 'stale'> {
  const outcome = await writeTransaction((entities) => {
    const update = entities.project.patch(key).set(set).add({ version: 1, revision: 1 });
    return [
      (remove.length > 0 ? update.remove(remove) : update)
        .where((attributes, operations) =>
          [
            operations.eq(attributes.version, read.version),
            operations.notExists(attributes.deletingAt),
            ...(revision === undefined ? [] : [versionIs(revision, attributes.revision, operations)]),
          ].join(' AND '),
        )
        .commit(),
      changeAction(entities, change),
    ];
  });
  return outcome.committed ? 'updated' : 'stale';
}
