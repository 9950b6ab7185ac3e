import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '#db/client.ts';
import { ensureTable } from '#db/ensure-table.ts';
import { type DynamoLocal, freePort, startDynamoLocal } from '#dev/dynamodb-local.ts';
import { startLocalServer } from '#dev/local-server.ts';
import { createApiKey } from '#domain/keys/keys.ts';
import { ensureLocalKeyFile } from '#shared/secrets/local-key-file.ts';
import { type Case, RAW_TRANSACT, rawWrites } from './bench-raw-writes.ts';
import { describeSustained, sustainedUsage, usageProject } from './bench-usage.ts';

/**
 * `npm run bench:dynamo-local`: the raw write ceiling of the embedded DynamoDB Local on this
 * machine, without the service: items/s, and the Java process's CPU per 1,000 items (on a
 * shared machine items/s moves with the neighbours' load, CPU per item much less), of
 * TransactWriteItems of N conditional Puts (a usage batch's dedupe entries) and BatchWriteItem
 * of 25 Puts from 1 and 4 clients, in memory and file-backed (`npm start`'s DATA_DIR), each
 * case for BENCH_SECONDS (default 4) after a JIT warm-up. `BENCH_DYNAMO_MODES=memory` (or
 * `file`) runs one mode; `BENCH_JAVA_OPTS` passes JVM flags (space-separated). The first mode
 * begins with the usage bench's sustained load through the local server (BENCH_USAGE_SENDERS
 * senders, default 4) BENCH_USAGE_RUNS times (default 2), each beside a raw 100-item
 * transaction run, so both are measured in the same minutes.
 */

const TABLE = 'pricing-raw';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const MODES = (process.env.BENCH_DYNAMO_MODES ?? 'memory,file').split(',');
const JAVA_OPTS = (process.env.BENCH_JAVA_OPTS ?? '').split(' ').filter(Boolean);
/** Sustained usage runs (4 senders × 3 batches of 1,000) interleaved with the raw ceiling; 0: none. */
const USAGE_RUNS = Number(process.env.BENCH_USAGE_RUNS ?? 2);
const USAGE_TABLE = 'pricing-bench-usage';

const CASES: Case[] = [
  { kind: 'transact', items: 25, clients: 1 },
  { kind: 'transact', items: 25, clients: 4 },
  { kind: 'transact', items: 50, clients: 1 },
  { kind: 'transact', items: 50, clients: 4 },
  { kind: 'transact', items: 100, clients: 1 },
  { kind: 'transact', items: 100, clients: 4 },
  { kind: 'batch', items: 25, clients: 1 },
  { kind: 'batch', items: 25, clients: 4 },
];

async function measure(mode: string): Promise<void> {
  const dir = mode === 'file' ? mkdtempSync(join(tmpdir(), 'dynamo-raw-')) : ':memory:';
  const dynamo = await startDynamoLocal({ port: await freePort(), dataDir: dir, javaOptions: JAVA_OPTS });
  const { region, ...credentials } = dynamo.credential;
  const client = createDocumentClient({ endpoint: dynamo.endpoint, region, credentials });
  try {
    await ensureTable(client, TABLE);
    await rawWrites(client, TABLE, RAW_TRANSACT, 2); // JIT warm-up
    // The first mode only: the local server's configuration is read once per process.
    if (USAGE_RUNS > 0 && mode === MODES[0]) await usageBeside(dynamo, client, mode);
    for (const c of CASES) {
      const { rate, cpuMsPerThousand } = await rawWrites(client, TABLE, c, SECONDS, dynamo.pid);
      const label = c.kind === 'transact' ? `TransactWriteItems × ${c.items} cond. Puts` : 'BatchWriteItem × 25 Puts';
      const cells = [
        mode.padEnd(6),
        label.padEnd(32),
        String(c.clients).padStart(7),
        Math.round(rate).toString().padStart(7),
        Math.round(cpuMsPerThousand).toString().padStart(15),
      ];
      console.log(cells.join(' | '));
    }
  } finally {
    client.destroy();
    await dynamo.stop();
    if (dir !== ':memory:') rmSync(dir, { recursive: true, force: true });
  }
}

/** The usage bench's sustained load through the local server, each run beside a raw one. */
async function usageBeside(dynamo: DynamoLocal, client: DynamoDBDocumentClient, mode: string): Promise<void> {
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    DYNAMODB_CREDENTIAL_FILE: dynamo.credentialFile,
    AWS_REGION: dynamo.credential.region,
    TABLE_NAME: USAGE_TABLE,
    LOG_LEVEL: 'silent',
  });
  await ensureTable(client, USAGE_TABLE);
  const keyDir = mkdtempSync(join(tmpdir(), 'bench-usage-'));
  process.env.PAYMENT_KEY_FILE = (await ensureLocalKeyFile(keyDir)).path;
  const server = await startLocalServer({ port: 0 });
  try {
    const { key } = await createApiKey({ ownerId: 'bench-usage', permission: 'read_write' });
    const usage = await usageProject(server.url, key);
    await sustainedUsage(usage, dynamo.pid, 1); // warm-up
    for (let i = 0; i < USAGE_RUNS; i++) {
      const raw = await rawWrites(client, TABLE, RAW_TRANSACT, SECONDS, dynamo.pid);
      console.log(
        `raw: TransactWriteItems × 100, 4 clients: ${Math.round(raw.rate)} items/s, ${Math.round(raw.cpuMsPerThousand)} Java CPU ms per 1,000 items`,
      );
      console.log(`usage (${mode}): ${describeSustained(await sustainedUsage(usage, dynamo.pid, 3))}`);
    }
    console.log('');
  } finally {
    await server.close();
    rmSync(keyDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(`DynamoDB Local raw write ceiling, ${SECONDS} s per case; JVM flags: ${JAVA_OPTS.join(' ') || 'none'}\n`);
  console.log(`${'data'.padEnd(6)} | ${'request'.padEnd(32)} | clients | items/s | Java CPU ms/1k`);
  for (const mode of MODES) await measure(mode);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
