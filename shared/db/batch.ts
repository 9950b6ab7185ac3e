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

export function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
