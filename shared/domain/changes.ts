import * as z from 'zod';
import { changeActions, changeResourceTypes } from '#contract/enums.ts';
import { type ChangeEntryItem, type NewChangeEntryItem, newChangeIds, readChanges } from '#db/changes.ts';
import { getProjectItem } from '#db/projects.ts';
import type { FeatureItem, PlanAssignment, PlanItem, ProjectItem, ProjectKey } from '#db/types.ts';
import { projectNotFound } from './errors.ts';
import { idKey, type PageQuery, pagedList } from './pages.ts';
import { slugPattern } from './projects/slug.ts';
import { lazySchema } from './validation.ts';
import type { Writer } from './versions.ts';

/**
 * The change log of a project: one entry per write,
 * put by the write's own transaction. Here: what an entry holds, and its pages.
 */

const RETENTION_SECONDS = 90 * 24 * 60 * 60;

const storedFields = lazySchema(() => z.record(z.string(), z.unknown()).nullable());

export const ChangeView = lazySchema(() =>
  z.strictObject({
    id: z.number(),
    at: z.string(),
    keyId: z.string(),
    action: z.enum(changeActions),
    resource: z.strictObject({ type: z.enum(changeResourceTypes), id: z.number() }),
    before: storedFields(),
    after: storedFields(),
  }),
);
export type ChangeView = z.infer<ReturnType<typeof ChangeView>>;

export const ChangesView = lazySchema(() =>
  z.strictObject({ changes: z.array(ChangeView()), nextCursor: z.string().nullable() }),
);

type Fields = Record<string, unknown>;

/** A project's own stored fields, its write-only secrets shown as "[set]" or null. */
export function projectFields(item: ProjectItem): Fields {
  const {
    ownerId: _owner,
    featureCount: _features,
    planCount: _plans,
    version: _version,
    revision: _revision,
    paymentKeySealed,
    webhookSecretSealed,
    ...fields
  } = item;
  return {
    ...fields,
    paymentSecretKey: paymentKeySealed === undefined ? null : '[set]',
    paymentWebhookSecret: webhookSecretSealed === undefined ? null : '[set]',
  };
}

/** A child's stored fields, without the keys every item of the project repeats. */
export function childFields(item: FeatureItem | Omit<PlanItem, 'assigned'> | PlanAssignment): Fields {
  // A plan's stored assignments are recorded as entries of their own (planFeature), not in the plan's.
  const {
    ownerId: _owner,
    slug: _slug,
    shareId: _share,
    version: _version,
    assigned: _assigned,
    ...fields
  } = item as PlanItem;
  return fields;
}

type Resource = { type: (typeof changeResourceTypes)[number]; id: number };

/**
 * The entries of one write (one per resource it records), with ids from the clock: ids grow
 * with time, and the log is read newest (highest) first.
 */
export function changeEntries(
  projectId: number,
  writer: Writer,
  records: { resource: Resource; before: Fields | null; after: Fields | null }[],
): NewChangeEntryItem[] {
  const ids = newChangeIds(records.length);
  const now = Date.now();
  return records.map(({ resource, before, after }, i) => ({
    projectId,
    changeId: ids[i] as number,
    at: new Date(now).toISOString(),
    keyId: writer.keyId,
    action: before === null ? 'create' : after === null ? 'delete' : 'update',
    resourceType: resource.type,
    resourceId: resource.id,
    before,
    after,
    expiresAt: Math.floor(now / 1000) + RETENTION_SECONDS,
  }));
}

/** The one entry of a write that records one resource. */
export function changeEntry(
  projectId: number,
  writer: Writer,
  resource: Resource,
  before: Fields | null,
  after: Fields | null,
): NewChangeEntryItem {
  return changeEntries(projectId, writer, [{ resource, before, after }])[0] as NewChangeEntryItem;
}

type ChildItem = FeatureItem | PlanItem | PlanAssignment;

/** The one entry of a write of a feature, plan or assignment, as stored before and after (null: none). */
export const childChange = (
  projectId: number,
  writer: Writer,
  resource: Resource,
  before: ChildItem | null,
  after: ChildItem | null,
) => changeEntry(projectId, writer, resource, before && childFields(before), after && childFields(after));

/** Newest first: a page follows the oldest entry of the page before. */
const changePages = pagedList(idKey, (item: ChangeEntryItem) => item.changeId);

const toChangeView = (item: ChangeEntryItem): ChangeView => ({
  id: item.changeId,
  at: item.at,
  keyId: item.keyId,
  action: item.action,
  resource: { type: item.resourceType, id: item.resourceId },
  before: (item.before ?? null) as Fields | null,
  after: (item.after ?? null) as Fields | null,
});

/**
 * One page of the project's log, newest first. Two requests: the project item (it must be
 * the caller's, and not deleted), then one Query of the log's own partition. Entries past
 * their 90 days that TTL has not removed yet are not shown.
 */
export async function listChanges(key: ProjectKey, query: PageQuery): Promise<z.infer<ReturnType<typeof ChangesView>>> {
  const start = changePages.start(query);
  const project = slugPattern.test(key.slug) ? await getProjectItem(key) : undefined;
  if (!project) throw projectNotFound(key.slug);
  const now = Math.floor(Date.now() / 1000);
  const page = await changePages.fill(
    start,
    (after, count) => readChanges(project.projectId, after, count),
    (item) => item.expiresAt > now,
  );
  return { changes: page.items.map(toChangeView), nextCursor: page.nextCursor };
}
