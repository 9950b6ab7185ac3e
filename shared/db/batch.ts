import { setTimeout as sleep } from 'node:timers/promises';
import { StorageBusyError } from './contention.ts';

interface BatchDeletable<K> {
  delete(keys: K[]): { go(options?: { concurrency?: number }): Promise<{ unprocessed: K[] }> };
}

/**
 * Deletes any number of items with BatchWriteItem (ElectroDB chunks by 25), retrying what
 * DynamoDB hands back as unprocessed until nothing is left.
 */
export async function deleteAll<K>(entity: BatchDeletable<K>, keys: K[]): Promise<void> {
  let pending = keys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
    if (attempt >= 10)
      throw new StorageBusyError(`Batch delete left ${pending.length} items unprocessed after ${attempt} attempts`);
    const { unprocessed } = await entity.delete(pending).go({ concurrency: 4 });
    pending = unprocessed;
  }
}

/**
 * Deletes every item a paged Query finds, whatever their number: `page(cursor)` reads one page
 * of keys (ElectroDB's `{data, cursor}`), each page is batch-deleted before the next is read.
 */
export async function deleteEveryPage<K>(
  entity: BatchDeletable<K>,
  page: (cursor: string | null) => Promise<{ data: K[]; cursor: string | null }>,
): Promise<void> {
  let cursor: string | null = null;
  do {
    const read: { data: K[]; cursor: string | null } = await page(cursor);
    await deleteAll(entity, read.data);
    cursor = read.cursor;
  } while (cursor);
}

export function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
