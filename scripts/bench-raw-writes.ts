import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BatchWriteCommand, type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';

/**
 * Raw writes to DynamoDB Local without the service, the engine's own ceiling that the usage
 * ingest is measured against (`npm run bench`, `npm run bench:dynamo-local`): TransactWriteItems
 * of N conditional Puts (the shape of a usage batch's dedupe entries) or BatchWriteItem of 25
 * Puts, from `clients` loops writing back to back.
 */

export interface Case {
  kind: 'transact' | 'batch';
  items: number;
  clients: number;
}

const SHARDS = 16;
let serial = 0;

/** A dedupe entry as the usage write puts it (shared/db/usage-write.ts). */
function entry() {
  const eventId = `${randomBytes(4).toString('hex')}-${serial++}`;
  return {
    pk: `$pricing#projectId_000000000001#shard_${serial % SHARDS}`,
    sk: `$usageevent_1#eventId_${eventId}`,
    projectId: 1,
    shard: serial % SHARDS,
    eventId,
    expiresAt: Math.floor(Date.now() / 1000) + 35 * 86_400,
    __edb_e__: 'usageevent',
    __edb_v__: '1',
  };
}

async function write(client: DynamoDBDocumentClient, table: string, { kind, items }: Case): Promise<void> {
  if (kind === 'transact') {
    await client.send(
      new TransactWriteCommand({
        TransactItems: Array.from({ length: items }, () => ({
          Put: { TableName: table, Item: entry(), ConditionExpression: 'attribute_not_exists(pk)' },
        })),
      }),
    );
    return;
  }
  let pending = Array.from({ length: items }, () => ({ PutRequest: { Item: entry() } }));
  while (pending.length > 0) {
    const output = await client.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
    pending = (output.UnprocessedItems?.[table] ?? []) as typeof pending;
  }
}

/** Items/s of one case for `seconds`, and the Java process's CPU ms per 1,000 items. */
export async function rawWrites(client: DynamoDBDocumentClient, table: string, c: Case, seconds: number, pid?: number) {
  const until = performance.now() + seconds * 1000;
  const cpuBefore = cpuSecondsOf(pid);
  const start = performance.now();
  let written = 0;
  await Promise.all(
    Array.from({ length: c.clients }, async () => {
      while (performance.now() < until) {
        await write(client, table, c);
        written += c.items;
      }
    }),
  );
  const rate = written / ((performance.now() - start) / 1000);
  return { rate, cpuMsPerThousand: ((cpuSecondsOf(pid) - cpuBefore) * 1_000_000) / written };
}

/** The raw case a usage batch is compared with: 100-item transactions from 4 clients. */
export const RAW_TRANSACT: Case = { kind: 'transact', items: 100, clients: 4 };

/** Linux's clock ticks per second (/proc/<pid>/stat counts CPU time in them). */
const CLOCK_TICKS = 100;

/** CPU seconds (user + system) a process has used (Linux /proc), or NaN where that is not there. */
export function cpuSecondsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
