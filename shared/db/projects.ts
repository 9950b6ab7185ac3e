import type { NewChangeEntryItem } from './changes.ts';
import type { NewProjectItem, ProjectItem } from './entities/project.ts';
import { type AnyEntity, collectionItems, type StoredItem } from './items.ts';
import { takeStoredAssignments } from './plan-assignments.ts';
import { queryAll, queryTemplate } from './raw-query.ts';
import { db, type PricingService } from './service.ts';
import { writeTransaction } from './transactions.ts';
import type { ProjectKey, ProjectPartition } from './types.ts';

/** A collection Query's items by entity alias, each member's list (empty when it has none). */
type CollectionData = Record<string, unknown[]>;

function toPartition(
  stored: StoredItem[],
  read: (items: StoredItem[]) => CollectionData,
): ProjectPartition | undefined {
  // Assignments are stored in their plans' items, read straight into assignments here.
  const { items, assignments } = takeStoredAssignments(stored);
  const data = read(items) as { project: ProjectItem[]; featureHead: unknown[] } & CollectionData;
  data.planFeature = assignments;
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

/** The Service's entities in a collection, by alias. */
const membersOf = (service: PricingService, collection: string): Record<string, AnyEntity> =>
  Object.fromEntries(
    Object.entries(service.collectionEntities).filter(([, entity]) =>
      Object.values(entity.schema.indexes as Record<string, { collection?: string | string[] }>).some((index) =>
        [index.collection].flat().includes(collection),
      ),
    ),
  );

/** A collection Query's items by entity alias, as ElectroDB's collection query returns them. */
function readerOf(collection: 'projectData' | 'share'): (items: StoredItem[]) => CollectionData {
  let members: { service: PricingService; entities: Record<string, AnyEntity> } | undefined;
  return (items) => {
    const service = db();
    if (members?.service !== service) members = { service, entities: membersOf(service, collection) };
    return collectionItems(members.entities, items) as CollectionData;
  };
}

/**
 * The collections' Queries as ElectroDB's `collections.projectData(key).go()` and
 * `collections.share(key).go()` send them, their items read as those return them but without
 * ElectroDB's per-item parse (shared/db/items.ts).
 */
const projectDataQuery = queryTemplate(['ownerId', 'slug'], (service, key) =>
  service.collections.projectData(key).params({ consistent: true }),
);
const shareQuery = queryTemplate(['shareId'], (service, key) => service.collections.share(key).params());
const projectData = readerOf('projectData');
const shareData = readerOf('share');

/** API v1 reads: the whole project in one Query on the table (strongly consistent). */
export async function readProjectPartition(key: ProjectKey): Promise<ProjectPartition | undefined> {
  return toPartition(await queryAll(projectDataQuery(key)), projectData);
}

/** Public reads: the whole project in one Query on the byShareId index. */
export async function readSharePartition(shareId: string): Promise<ProjectPartition | undefined> {
  return toPartition(await queryAll(shareQuery({ shareId })), shareData);
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
 * Creates the project with its feature head (the part reads' stand-in for the project item)
 * and its first change-log entry, in one transaction, unless the owner already has one with
 * this slug.
 */
export async function insertProject(
  item: NewProjectItem,
  change: NewChangeEntryItem,
): Promise<ProjectItem | 'slug_taken'> {
  const created = { featureCount: 0, planCount: 0, version: 1, revision: 1, ...item };
  const { ownerId, slug, shareId, projectId } = created;
  const outcome = await writeTransaction(
    (entities) => [
      entities.project.create(created).commit(),
      entities.featureHead.create({ ownerId, slug, shareId, projectId }).commit(),
    ],
    [change],
  );
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
  const outcome = await writeTransaction(
    (entities) => {
      const update = entities.project.patch(key).set(set).add({ version: 1, revision: 1 });
      return [
        (remove.length > 0 ? update.remove(remove) : update)
          .where((attributes, operations) =>
            [
              operations.eq(attributes.version, read.version),
              ...(revision === undefined ? [] : [operations.eq(attributes.revision, revision)]),
            ].join(' AND '),
          )
          .commit(),
      ];
    },
    [change],
  );
  return outcome.committed ? 'updated' : 'stale';
}
