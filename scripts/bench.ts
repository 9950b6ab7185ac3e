import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type NativeAttributeValue, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '#db/client.ts';
import { ensureTable } from '#db/ensure-table.ts';
import { apiRequest } from '#dev/api-request.ts';
import { freePort, startDynamoLocal } from '#dev/dynamodb-local.ts';
import { startFakeStripe } from '#dev/fake-stripe/index.ts';
import { localMigrationsFor } from '#dev/local-migrations.ts';
import { startLocalServer } from '#dev/local-server.ts';
import { localSweeperFor } from '#dev/local-sweeper.ts';
import { printWarm } from '#dev/warm-cpu.ts';
import { createApiKey } from '#domain/keys/keys.ts';
import { compose } from '#shared/composition.ts';
import { parseRuntimeConfig } from '#shared/config.ts';
import { stripeGatewayFor } from '#shared/payments/stripe.ts';
import { stripeWebhookVerifier } from '#shared/payments/stripe-webhooks.ts';
import { totalDynamoRequests } from '#shared/request-context.ts';
import { localKeyring } from '#shared/secrets/keyring.ts';
import { localTokenKeys } from '#shared/secrets/token-keys.ts';
import { WIDGET_GZIP_BUDGET, widgetSize } from '../widget/build.ts';
import { billingRows, type Row, summarize } from './bench-billing.ts';
import { compressionRows } from './bench-compression.ts';
import { consumeRows } from './bench-consume.ts';
import { printScaleTable } from './bench-scale.ts';
import { entitlementReads, usageRows } from './bench-usage.ts';
import { versionRows } from './bench-versions.ts';

/**
 * `npm run bench`: seeds one project of 50 features and 20 plans (1,000 assignments)
 * through the HTTP API, then times every read endpoint against a bare DynamoDB Query of
 * the same partition on the same DynamoDB Local. Each read must stay one DynamoDB request
 * on a warm container; more is a regression and fails the run. The payment endpoints are
 * measured too, against the project's fake Stripe on loopback (their latency includes it).
 *
 * `BENCH_ONLY=warm` seeds the same project and prints only the warm handler CPU and p50 against
 * a bare Query (dev/warm-cpu.ts) and the share throughput; `BENCH_ONLY=scale` only the scale
 * table (scripts/bench-scale.ts). `BENCH_ITERATIONS`: calls per endpoint.
 */

const TABLE_NAME = 'pricing-bench';
const OWNER_ID = 'bench';
const REGION = 'us-east-1';
const FEATURES = 50;
const PLANS = 20;
const SEED_CONCURRENCY = 5;
const WARMUP_REQUESTS = 5;
const DEFAULT_ITERATIONS = 200;
const KEY_CACHE_TTL_SECONDS = 60;
// Well inside the key cache's TTL, so no measured request is the one that refreshes it.
const KEY_ROTATION_MS = (KEY_CACHE_TTL_SECONDS * 1000) / 2;
/** The share read, the rate limit's two windows (the client's, the project's) and the checkout-session record. */
const PAYMENT_REQUESTS = 4;

class BenchError extends Error {}

function benchOnly(): 'warm' | 'scale' | 'consume' | undefined {
  const raw = process.env.BENCH_ONLY;
  if (raw === undefined || raw.trim() === '') return undefined;
  if (raw === 'warm' || raw === 'scale' || raw === 'consume') return raw;
  throw new BenchError(`BENCH_ONLY must be "warm", "scale", "consume" or unset (got "${raw}")`);
}

function iterationCount(): number {
  const raw = process.env.BENCH_ITERATIONS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_ITERATIONS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new BenchError(`BENCH_ITERATIONS must be a whole number ≥ 1 (got "${raw}")`);
  return n;
}

const range = (min: number, max: number) => (min === max ? String(min) : `${min}-${max}`);

async function inBatches<T, R>(items: readonly T[], size: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return results;
}

function printTable(rows: Row[]): void {
  const header = ['endpoint', 'dynamo req/call', 'p50 ms', 'p95 ms', 'bytes'];
  const cells = rows.map((r) => [
    r.label,
    range(r.requestsMin, r.requestsMax),
    r.p50.toFixed(2),
    r.p95.toFixed(2),
    r.size,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: string[]) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0)));
  console.log(line(header).join(' | '));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const c of cells) console.log(line(c).join(' | '));
}

async function main(): Promise<number> {
  const iterations = iterationCount();
  const startedAt = performance.now();
  // File-backed, as `npm start` runs it: the usage ingest is judged against this engine.
  const dataDir = mkdtempSync(join(tmpdir(), 'pricing-bench-'));
  const dynamo = await startDynamoLocal({ port: await freePort(), dataDir });
  const stripe = await startFakeStripe();
  let closeServer: (() => Promise<void>) | undefined;
  const { region, ...credentials } = dynamo.credential;
  const client = createDocumentClient({ endpoint: dynamo.endpoint, region, credentials });
  try {
    const config = parseRuntimeConfig({
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      DYNAMODB_CREDENTIAL_FILE: dynamo.credentialFile,
      TABLE_NAME,
      LOG_LEVEL: 'silent',
      AWS_REGION: REGION,
      KEY_CACHE_TTL_SECONDS: String(KEY_CACHE_TTL_SECONDS),
      STRIPE_API_BASE: stripe.url,
    });
    // Payment calls are limited per client address and project (30 in any 60 s): the bench's
    // clock moves 2 s on each reading, so its sequential checkouts stay inside the limit and
    // measure the usual writes (one conditional UpdateItem per window) rather than 429s.
    let ticks = 0;
    const spacedClock = { now: () => Date.now() + 2000 * ticks++ };
    const app = compose(config, {
      keyring: () => localKeyring(randomBytes(32)),
      payments: stripeGatewayFor,
      clock: () => spacedClock,
      sweeps: localSweeperFor,
      migrations: localMigrationsFor,
      webhooks: stripeWebhookVerifier,
      tokenKeys: () => localTokenKeys(randomBytes(32)),
    });
    await ensureTable(client, TABLE_NAME);
    const server = await startLocalServer({ port: 0, app });
    closeServer = server.close;

    let key = (await createApiKey({ ownerId: OWNER_ID, permission: 'read_write' })).key;
    let keyIssuedAt = performance.now();

    // biome-ignore lint/suspicious/noExplicitAny: the seed reads a few fields of each response and checks them
    const call = async (method: string, path: string, expected: number, body?: unknown): Promise<any> => {
      const { status, text } = await apiRequest(`${server.url}${path}`, key, method, body);
      if (status !== expected) throw new BenchError(`${method} ${path}: expected ${expected}, got ${status}: ${text}`);
      return JSON.parse(text);
    };

    const warmOnly = benchOnly() === 'warm';
    const consume = () =>
      consumeRows({
        client,
        table: TABLE_NAME,
        serverUrl: server.url,
        key,
        ownerId: OWNER_ID,
        iterations,
        cacheTtlMs: config.PROJECT_CACHE_TTL_SECONDS * 1000,
      });
    if (benchOnly() === 'consume') {
      const consumed = await consume();
      printTable(consumed.rows);
      for (const note of consumed.notes) console.log(note);
      return 0;
    }
    // Seed through the API, as a customer's script would.
    const seedStart = performance.now();
    const project = await call('POST', '/api/v1/projects', 201, {
      name: 'Bench',
      paymentSecretKey: `sk_test_${randomBytes(16).toString('hex')}`,
      checkoutTestSuccessUrl: 'https://bench.example/thanks',
      checkoutTestCancelUrl: 'https://bench.example/pricing',
    });
    const base = `/api/v1/projects/${project.slug}`;
    const featureIds: number[] = (
      await inBatches(
        Array.from({ length: FEATURES }, (_, i) => i + 1),
        SEED_CONCURRENCY,
        (n) =>
          call('POST', `${base}/features`, 201, { name: `F${n}`, basePrice: 1, isCountable: true, usageCount: 100 }),
      )
    ).map((f) => f.id);
    const refs = featureIds.map((featureId) => ({ featureId, multiplier: 2 }));
    const planIds: number[] = (
      await inBatches(
        Array.from({ length: PLANS }, (_, i) => i + 1),
        SEED_CONCURRENCY,
        (n) => call('POST', `${base}/plans`, 201, { name: `P${n}`, basePrice: 10, features: refs }),
      )
    ).map((p) => p.id);
    const seeded = await call('GET', base, 200);
    const assignments = (seeded.pricingPlans as { planFeatures: unknown[] }[]).reduce(
      (sum, plan) => sum + plan.planFeatures.length,
      0,
    );
    if (seeded.features.length !== FEATURES || seeded.pricingPlans.length !== PLANS || assignments !== FEATURES * PLANS)
      throw new BenchError(
        `Seed check failed: ${seeded.features.length} features, ${seeded.pricingPlans.length} plans, ${assignments} plan features (expected ${FEATURES}, ${PLANS}, ${FEATURES * PLANS}).`,
      );
    console.log(
      `Seeded ${FEATURES} features, ${PLANS} plans, ${assignments} plan features in ${((performance.now() - seedStart) / 1000).toFixed(1)} s; ${iterations} sequential requests per endpoint.\n`,
    );

    const warm = () =>
      printWarm({
        tableName: TABLE_NAME,
        ownerId: OWNER_ID,
        app,
        key,
        slug: project.slug,
        shareId: project.shareId,
        serverUrl: server.url,
        options: { endpoint: dynamo.endpoint, region, credentials },
        iterations,
      });
    if (warmOnly) {
      await warm();
      return 0;
    }
    if (benchOnly() === 'scale') {
      const scaleOk = await printScaleTable(server.url, OWNER_ID);
      if (scaleOk) return 0;
      console.log("\nFAIL: a part read's requests grew past 1.5× between 1,000 and 20,000 assignments.");
      return 1;
    }

    async function paidReceiptPath() {
      const session = await call('POST', '/api/payments/checkout', 200, {
        shareId: project.shareId,
        planId: Math.min(...planIds),
      });
      stripe.complete(session.sessionId);
      return `/api/payments/receipt?session_id=${session.sessionId}&shareId=${project.shareId}`;
    }

    // A fresh key's record is cached for the TTL from its first use; renewing it between
    // requests keeps the cache warm for every measured one however long a run takes.
    const keepKeyWarm = async () => {
      if (performance.now() - keyIssuedAt < KEY_ROTATION_MS) return;
      key = (await createApiKey({ ownerId: OWNER_ID, permission: 'read' })).key;
      keyIssuedAt = performance.now();
      await call('GET', '/api/v1/projects', 200);
    };

    const endpoints = [
      { label: 'GET /api/v1/projects', path: '/api/v1/projects' },
      { label: 'GET /api/v1/projects/{slug}', path: base },
      { label: 'GET /api/v1/projects/{slug}/features', path: `${base}/features` },
      { label: 'GET /api/v1/projects/{slug}/plans', path: `${base}/plans` },
      // The plan's part: the feature range and the plan's key prefix, two bounded Queries in
      // one round trip at any size (docs/decisions.md, "Reads of a part").
      {
        label: 'GET /api/v1/projects/{slug}/plans/{planId}/features',
        path: `${base}/plans/${Math.min(...planIds)}/features`,
        allowed: 2,
      },
      { label: 'GET /api/share/{shareId}', path: `/api/share/${project.shareId}` },
      // A public payment call also counts itself against the project's rate limit (one
      // UpdateItem) and keeps or reads its checkout-session record (decisions.md, "Rate
      // limit of the public payment calls"): 3 requests, of which one is the share read.
      {
        label: 'POST /api/payments/checkout',
        path: '/api/payments/checkout',
        body: { shareId: project.shareId, planId: Math.min(...planIds), billingInterval: 'year' },
        allowed: PAYMENT_REQUESTS,
      },
      {
        label: 'POST /api/payments/checkout/custom',
        path: '/api/payments/checkout/custom',
        body: { shareId: project.shareId, features: featureIds.slice(0, 10).map((featureId) => ({ featureId })) },
        allowed: PAYMENT_REQUESTS,
      },
      { label: 'GET /api/payments/receipt', path: await paidReceiptPath(), allowed: PAYMENT_REQUESTS },
    ];
    // A customer on the first plan, for the entitlement read (billing.md), and signed webhooks.
    await call('PUT', `${base}/customers/bench-user`, 200, { planId: Math.min(...planIds) });
    const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
    await call('PUT', base, 200, { paymentWebhookSecret: webhookSecret });
    const entitlementsPath = `${base}/customers/bench-user/entitlements`;

    const rows: Row[] = [];
    const measure = async (label: string, path: string, payload?: unknown) => {
      const method = payload ? 'POST' : 'GET';
      for (let i = 0; i < WARMUP_REQUESTS; i++) await call(method, path, 200, payload);
      const latencies: number[] = [];
      const requests: number[] = [];
      const sizes = new Set<number>();
      for (let i = 0; i < iterations; i++) {
        await keepKeyWarm();
        const before = totalDynamoRequests();
        const start = performance.now();
        const response = await fetch(`${server.url}${path}`, {
          method,
          // Identity, as these rows have always been timed: the coding's CPU has rows of its own.
          headers: {
            authorization: `Bearer ${key}`,
            'accept-encoding': 'identity',
            ...(payload ? { 'content-type': 'application/json' } : {}),
          },
          body: payload ? JSON.stringify(payload) : undefined,
        });
        const body = await response.arrayBuffer();
        latencies.push(performance.now() - start);
        // The server runs in this process and requests are sequential, so the whole delta is this request's.
        requests.push(totalDynamoRequests() - before);
        if (response.status !== 200) throw new BenchError(`${label}: got ${response.status} on request ${i + 1}`);
        sizes.add(body.byteLength);
      }
      rows.push(summarize(label, latencies, requests, range(Math.min(...sizes), Math.max(...sizes))));
    };
    for (const { label, path, body: payload } of endpoints) await measure(label, path, payload);

    // The project item, its feature head, the features, the plans and the assignments.
    const expectedItems = 2 + FEATURES + PLANS + FEATURES * PLANS;
    const baseline = async (label: string, input: ConstructorParameters<typeof QueryCommand>[0]) => {
      const latencies: number[] = [];
      const pages: number[] = [];
      for (let i = 0; i < WARMUP_REQUESTS + iterations; i++) {
        const start = performance.now();
        let items = 0;
        let page = 0;
        let startKey: Record<string, NativeAttributeValue> | undefined;
        do {
          const result = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
          items += result.Items?.length ?? 0;
          page += 1;
          startKey = result.LastEvaluatedKey;
        } while (startKey);
        const elapsed = performance.now() - start;
        // A wrong key would make a fast, empty and meaningless baseline.
        if (items !== expectedItems) throw new BenchError(`${label}: ${items} items, expected ${expectedItems}`);
        if (i < WARMUP_REQUESTS) continue;
        latencies.push(elapsed);
        pages.push(page);
      }
      return summarize(label, latencies, pages, `${expectedItems} items`);
    };
    rows.push(
      await baseline('baseline: Query pk (ConsistentRead)', {
        TableName: TABLE_NAME,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `$pricing#ownerId_${OWNER_ID}#slug_${project.slug}` },
        ConsistentRead: true,
      }),
      await baseline('baseline: Query gsi1 (share)', {
        TableName: TABLE_NAME,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': `$pricing#shareId_${project.shareId}` },
      }),
    );
    const extra = await billingRows({
      measure,
      rows,
      client,
      serverUrl: server.url,
      project,
      webhookSecret,
      iterations,
    });
    await measure('GET …/customers/{customerId}/entitlements', entitlementsPath);
    rows.push(extra.customerBaseline);
    // Like with like: the read in process and over HTTP beside a bare BatchGetItem of its keys.
    const writeKey = (await createApiKey({ ownerId: OWNER_ID, permission: 'read_write' })).key;
    const bigReads = await entitlementReads({
      client,
      table: TABLE_NAME,
      serverUrl: server.url,
      key: writeKey,
      projectKey: { ownerId: OWNER_ID, slug: project.slug },
      projectId: project.id,
      customerId: 'bench-user',
      features: featureIds.map((featureId) => ({ featureId, method: 'count' as const })),
      iterations,
      cacheTtlMs: config.PROJECT_CACHE_TTL_SECONDS * 1000,
    });
    rows.push(...bigReads.rows, extra.webhook);
    const share = await fetch(`${server.url}/api/share/${project.shareId}`, {
      headers: { 'accept-encoding': 'identity' },
    });
    rows.push(...compressionRows(await share.text(), iterations));
    const usage = await usageRows({
      client,
      table: TABLE_NAME,
      serverUrl: server.url,
      key: writeKey,
      ownerId: OWNER_ID,
      iterations,
      cacheTtlMs: config.PROJECT_CACHE_TTL_SECONDS * 1000,
      dynamoPid: dynamo.pid,
    });
    rows.push(...usage.rows);
    const consumed = await consume();
    rows.push(...consumed.rows);
    const versions = await versionRows({ serverUrl: server.url, key: writeKey, iterations, customers: 1_000 });
    rows.push(...versions.rows);
    usage.notes.push(...versions.notes);

    printTable(rows);
    await warm();
    const scaleOk = await printScaleTable(server.url, OWNER_ID);
    const widget = await widgetSize();
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
    console.log(
      `\nwidget.js: ${kb(widget.raw)} minified, ${kb(widget.gzip)} gzip (budget ${kb(WIDGET_GZIP_BUDGET)}), ${kb(widget.brotli)} brotli`,
    );
    if (widget.gzip > WIDGET_GZIP_BUDGET) {
      console.log(`\nFAIL: widget.js is ${kb(widget.gzip)} gzipped, over its ${kb(WIDGET_GZIP_BUDGET)} budget.`);
      return 1;
    }
    console.log(
      `entitlements read (${FEATURES} countable features, ${PLANS} plans): ${bigReads.note}; webhook p50 ${extra.webhook.p50.toFixed(2)} ms`,
    );
    for (const note of usage.notes) console.log(note);
    for (const note of consumed.notes) console.log(note);
    const measured = rows.slice(0, endpoints.length);
    const allowed = (label: string) => endpoints.find((e) => e.label === label)?.allowed ?? 1;
    const over = measured.filter((r) => r.requestsMax > allowed(r.label));
    // Every read must query DynamoDB; a zero means the counter is not wired and proves nothing.
    const uncounted = measured.filter((r) => r.requestsMin < 1);
    const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
    if (uncounted.length > 0) {
      console.log(
        `\nFAIL: no DynamoDB request was counted for ${uncounted.map((r) => r.label).join(', ')}: the request counter is not wired up (${seconds} s).`,
      );
      return 1;
    }
    if (over.length > 0) {
      console.log(
        `\nFAIL: ${over.map((r) => `${r.label} (${range(r.requestsMin, r.requestsMax)})`).join(', ')} made more DynamoDB requests per call than allowed on a warm cache (reads 1, plan features 2, payment calls ${PAYMENT_REQUESTS}) (${seconds} s).`,
      );
      return 1;
    }
    if (!scaleOk) {
      console.log(`\nFAIL: a part read's requests grew past 1.5× between 1,000 and 20,000 assignments (${seconds} s).`);
      return 1;
    }
    console.log(
      `\nOK: every endpoint measured made exactly 1 DynamoDB request per call on a warm cache (${seconds} s).`,
    );
    return 0;
  } finally {
    client.destroy();
    await closeServer?.();
    await stripe.close();
    await dynamo.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof BenchError ? error.message : error);
    process.exit(1);
  },
);
