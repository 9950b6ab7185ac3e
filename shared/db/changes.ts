// A project's change log: its entries are written by the transactions of the writes they
// record (each storage write takes its entries as `changes`, which writeTransaction puts
// after the write's own actions), read a page at a time, newest first, and swept with the
// project.

import { deleteAll, deleteEveryPage } from './batch.ts';
import type { ChangeEntryItem, NewChangeEntryItem } from './entities/change-entry.ts';
import { db } from './service.ts';

export type { ChangeEntryItem, NewChangeEntryItem };

let lastChangeId = 0;

/**
 * Ids for the `count` entries of one write, consecutive: the clock's milliseconds × 1,000
 * plus a random offset below 500, and above every id this process gave, so entries rise
 * with time and the log reads newest (highest) first. No shared counter is written: one
 * item that every write of the service updates would cap all writes at that item's
 * throughput and cost each one a request. An entry's key is its project and its id, so two
 * writers of one project can draw one id only within one millisecond; the entry's put
 * condition then cancels the write, and writeTransaction retries it with new ids: an entry
 * never overwrites another.
 */
export function newChangeIds(count: number): number[] {
  const first = Math.max(lastChangeId + 1, Date.now() * 1000 + Math.floor(Math.random() * 500));
  lastChangeId = first + count - 1;
  return Array.from({ length: count }, (_, i) => first + i);
}

/** Gives `entries` new ids in place (their write was cancelled by an id another writer took). */
export function renumberChanges(entries: NewChangeEntryItem[]): void {
  const ids = newChangeIds(entries.length);
  for (const [i, entry] of entries.entries()) entry.changeId = ids[i] as number;
}

/**
 * Up to `count` entries of the project, newest first, older than the entry `after` (from
 * the newest when undefined): one Query. `more` says whether older ones follow.
 */
export async function readChanges(
  projectId: number,
  after: number | undefined,
  count: number,
): Promise<{ items: ChangeEntryItem[]; more: boolean }> {
  const query = db().entities.changeEntry.query.byProject({ projectId });
  const { data, cursor } = await (after === undefined ? query : query.lt({ changeId: after })).go({
    order: 'desc',
    limit: count,
    consistent: true,
  });
  return { items: data, more: cursor !== null };
}

/**
 * Deletes entries whose writes were undone (a multi-transaction write that failed part way
 * removes what it committed): the log keeps no entry without its write.
 */
export async function removeChanges(entries: Pick<NewChangeEntryItem, 'projectId' | 'changeId'>[]): Promise<void> {
  await deleteAll(
    db().entities.changeEntry,
    entries.map(({ projectId, changeId }) => ({ projectId, changeId })),
  );
}

/**
 * Deletes a deleted project's log, whatever its length: a Query per page of keys and batch
 * deletes. Run by the project sweep after the partition is empty, when no write of the
 * project (hence no entry) can commit any more: each checks the project item in its
 * transaction.
 */
export async function sweepChanges(projectId: number): Promise<void> {
  const { changeEntry } = db().entities;
  await deleteEveryPage(changeEntry, (cursor) =>
    changeEntry.query.byProject({ projectId }).go({ cursor, consistent: true, attributes: ['projectId', 'changeId'] }),
  );
}
