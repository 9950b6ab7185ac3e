// A project's change log: its entries are written by the transactions of the writes they
// record (each storage write takes the entry as `change`), read a page at a time, newest
// first, and swept with the project.

import { deleteAll, deleteEveryPage } from './batch.ts';
import type { ChangeEntryItem, NewChangeEntryItem } from './entities/change-entry.ts';
import { db } from './service.ts';
import type { TransactionEntities } from './transactions.ts';

export type { ChangeEntryItem, NewChangeEntryItem };

/** The entry's action in a write transaction: a plain put, its id being allocated for it. */
export const changeAction = (entities: TransactionEntities, entry: NewChangeEntryItem) =>
  entities.changeEntry.put(entry).commit();

/**
 * Up to `count` entries of the project, newest first, with ids below `beforeId` (all when
 * 0): one Query. `more` says whether older ones follow.
 */
export async function readChanges(
  projectId: number,
  beforeId: number,
  count: number,
): Promise<{ items: ChangeEntryItem[]; more: boolean }> {
  const query = db().entities.changeEntry.query.byProject({ projectId });
  const { data, cursor } = await (beforeId > 0 ? query.lt({ changeId: beforeId }) : query).go({
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
