import { setTimeout as sleep } from 'node:timers/promises';
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { StorageBusyError } from './contention.ts';
import { rawTable } from './service.ts';

/** BatchGetItem takes at most 100 keys. */
const BATCH_GET_KEYS = 100;
/** Rounds of a batch request's unprocessed keys before giving up (DynamoDB throttles). */
const BATCH_ROUNDS = 10;

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
    if (attempt >= BATCH_ROUNDS)
      throw new StorageBusyError(`Batch delete left ${pending.length} items unprocessed after ${attempt} attempts`);
    const { unprocessed } = await entity.delete(pending).go({ concurrency: 4 });
    pending = unprocessed;
  }
}

/**
 * Deletes every item a paged Query finds, whatever their number: `page(cursor)` reads one page
 * of keys (ElectroDB's `{data, cursor}`), each page is batch-deleted before the next is read.
 * Returns how many it deleted.
 */
export async function deleteEveryPage<K>(
  entity: BatchDeletable<K>,
  page: (cursor: string | null) => Promise<{ data: K[]; cursor: string | null }>,
): Promise<number> {
  let deleted = 0;
  let cursor: string | null = null;
  do {
    const read: { data: K[]; cursor: string | null } = await page(cursor);
    await deleteAll(entity, read.data);
    deleted += read.data.length;
    cursor = read.cursor;
  } while (cursor);
  return deleted;
}

interface BatchGettable<K, T> {
  get(keys: K[]): { go(options: { consistent: true }): Promise<{ data: T[]; unprocessed: K[] }> };
}

/**
 * Items by key through an entity's batch get, strongly consistent and formatted, retrying what
 * DynamoDB hands back as unprocessed: an item left out would be read as missing.
 */
export async function getEvery<K, T>(entity: BatchGettable<K, T>, keys: K[]): Promise<T[]> {
  const found: T[] = [];
  await readUntilProcessed(keys, async (pending) => {
    const { data, unprocessed } = await entity.get(pending).go({ consistent: true });
    found.push(...data);
    return unprocessed;
  });
  return found;
}

/** Reads `keys` in rounds, each round handing back the keys DynamoDB left unprocessed, until none are. */
async function readUntilProcessed<K>(keys: K[], round: (pending: K[]) => Promise<K[]>): Promise<void> {
  let pending = keys;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt > 0) await sleep(Math.min(500, 10 * 2 ** attempt));
    if (attempt >= BATCH_ROUNDS) throw new StorageBusyError(`BatchGetItem left ${pending.length} keys unprocessed`);
    pending = await round(pending);
  }
}

type Key = { pk: string; sk: string };

/**
 * Any number of items by key, strongly consistent, as stored (no ElectroDB formatting: the
 * callers' reads are hot): BatchGetItem, 100 keys a request, all at once, retrying what
 * DynamoDB hands back as unprocessed. `attributes` projects each item to those attributes.
 */
export async function getAll(keys: readonly Key[], attributes?: readonly string[]): Promise<Record<string, unknown>[]> {
  const { client, table } = rawTable();
  const projection = attributes && {
    ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name])),
  };
  const found: Record<string, unknown>[] = [];
  await Promise.all(
    chunk([...keys], BATCH_GET_KEYS).map((slice) =>
      readUntilProcessed(slice, async (pending) => {
        const output = await client.send(
          new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ConsistentRead: true, ...projection } } }),
        );
        found.push(...(output.Responses?.[table] ?? []));
        return (output.UnprocessedKeys?.[table]?.Keys ?? []) as Key[];
      }),
    ),
  );
  return found;
}

export function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
