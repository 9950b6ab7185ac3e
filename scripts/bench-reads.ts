import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, type NativeAttributeValue, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { totalDynamoRequests } from '#shared/request-context.ts';
import { type apiCaller, BenchError, inBatches, type Row, range, summarize } from './bench-harness.ts';

/**
 * The bench project (50 features and 20 plans, 1,000 assignments, seeded through the API as a
 * customer's script would) and the rows of its read and payment endpoints, each beside a bare
 * DynamoDB Query of the same partition on the same DynamoDB Local.
 */

export const FEATURES = 50;
export const PLANS = 20;
const WARMUP_REQUESTS = 5;
/** The share read, the rate limit's two windows (the client's, the project's) and the checkout-session record. */
export const PAYMENT_REQUESTS = 4;

type Call = ReturnType<typeof apiCaller>;

export async function seedBenchProject(call: Call, iterations: number) {
  const seedStart = performance.now();
  const project = await call('POST', '/api/v1/projects', 201, {
    name: 'Bench',
    paymentSecretKey: `sk_test_${randomBytes(16).toString('hex')}`,
    checkoutTestSuccessUrl: 'https://bench.example/thanks',
    checkoutTestCancelUrl: 'https://bench.example/pricing',
  });
  const base = `/api/v1/projects/${project.slug}`;
  const featureIds: number[] = (
    await inBatches(FEATURES, (i) =>
      call('POST', `${base}/features`, 201, { name: `F${i + 1}`, basePrice: 1, isCountable: true, usageCount: 100 }),
    )
  ).map((f) => f.id);
  const refs = featureIds.map((featureId) => ({ featureId, multiplier: 2 }));
  const planIds: number[] = (
    await inBatches(PLANS, (i) =>
      call('POST', `${base}/plans`, 201, { name: `P${i + 1}`, basePrice: 10, features: refs }),
    )
  ).map((p) => p.id);
  const seeded = await call('GET', base, 200);
  const assignments = seeded.pricingPlans.flatMap((plan: { planFeatures: unknown[] }) => plan.planFeatures).length;
  if (seeded.features.length !== FEATURES || seeded.pricingPlans.length !== PLANS || assignments !== FEATURES * PLANS)
    throw new BenchError(
      `Seed check failed: ${seeded.features.length} features, ${seeded.pricingPlans.length} plans, ${assignments} plan features (expected ${FEATURES}, ${PLANS}, ${FEATURES * PLANS}).`,
    );
  console.log(
    `Seeded ${FEATURES} features, ${PLANS} plans, ${assignments} plan features in ${((performance.now() - seedStart) / 1000).toFixed(1)} s; ${iterations} sequential requests per endpoint.\n`,
  );
  return { project, base, featureIds, planId: Math.min(...planIds) };
}

export type BenchProject = Awaited<ReturnType<typeof seedBenchProject>>;

/** Times GETs (or POSTs of `payload`) of `path`, answered 200, with identity coding: the coding's CPU has rows of its own. */
export function endpointTimer(options: {
  serverUrl: string;
  call: Call;
  key: { key: () => string; keepWarm: () => Promise<void> };
  iterations: number;
}) {
  const { serverUrl, call, key, iterations } = options;
  return async (label: string, path: string, payload?: unknown): Promise<Row> => {
    const method = payload ? 'POST' : 'GET';
    for (let i = 0; i < WARMUP_REQUESTS; i++) await call(method, path, 200, payload);
    const latencies: number[] = [];
    const requests: number[] = [];
    const sizes = new Set<number>();
    for (let i = 0; i < iterations; i++) {
      await key.keepWarm();
      const before = totalDynamoRequests();
      const start = performance.now();
      const response = await fetch(`${serverUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key.key()}`,
          'accept-encoding': 'identity',
          ...(payload ? { 'content-type': 'application/json' } : {}),
        },
        body: payload ? JSON.stringify(payload) : undefined,
      });
      const body = await response.arrayBuffer();
      latencies.push(performance.now() - start);
      requests.push(totalDynamoRequests() - before);
      if (response.status !== 200) throw new BenchError(`${label}: got ${response.status} on request ${i + 1}`);
      sizes.add(body.byteLength);
    }
    return summarize(label, latencies, requests, range(Math.min(...sizes), Math.max(...sizes)));
  };
}

/** The endpoints each call must keep to `allowed` DynamoDB requests (1 unless said). */
export function benchEndpoints({ project, base, featureIds, planId }: BenchProject, receiptPath: string) {
  return [
    { label: 'GET /api/v1/projects', path: '/api/v1/projects' },
    { label: 'GET /api/v1/projects/{slug}', path: base },
    { label: 'GET /api/v1/projects/{slug}/features', path: `${base}/features` },
    { label: 'GET /api/v1/projects/{slug}/plans', path: `${base}/plans` },
    // The plan's part: the feature range and the plan's key prefix, two bounded Queries in
    // one round trip at any size (docs/decisions.md, "Reads of a part").
    {
      label: 'GET /api/v1/projects/{slug}/plans/{planId}/features',
      path: `${base}/plans/${planId}/features`,
      allowed: 2,
    },
    { label: 'GET /api/share/{shareId}', path: `/api/share/${project.shareId}` },
    // A public payment call also counts itself against the project's rate limit (one
    // UpdateItem) and keeps or reads its checkout-session record (decisions.md, "Rate
    // limit of the public payment calls").
    {
      label: 'POST /api/payments/checkout',
      path: '/api/payments/checkout',
      body: { shareId: project.shareId, planId, billingInterval: 'year' },
      allowed: PAYMENT_REQUESTS,
    },
    {
      label: 'POST /api/payments/checkout/custom',
      path: '/api/payments/checkout/custom',
      body: { shareId: project.shareId, features: featureIds.slice(0, 10).map((featureId) => ({ featureId })) },
      allowed: PAYMENT_REQUESTS,
    },
    { label: 'GET /api/payments/receipt', path: receiptPath, allowed: PAYMENT_REQUESTS },
  ];
}

/**
 * A bare Query of the project's items, every page, timed: the yardstick of the reads. The
 * project item, its feature head, the features and the plans (each holding its assignments)
 * must all come back.
 */
async function baseline(
  client: DynamoDBDocumentClient,
  iterations: number,
  label: string,
  input: ConstructorParameters<typeof QueryCommand>[0],
): Promise<Row> {
  const expectedItems = 2 + FEATURES + PLANS;
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
}

/** The two bare Queries: the project's partition, and the share index's key. */
export async function baselineRows(
  client: DynamoDBDocumentClient,
  table: string,
  ownerId: string,
  project: { slug: string; shareId: string },
  iterations: number,
): Promise<Row[]> {
  return [
    await baseline(client, iterations, 'baseline: Query pk (ConsistentRead)', {
      TableName: table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `$pricing#ownerId_${ownerId}#slug_${project.slug}` },
      ConsistentRead: true,
    }),
    await baseline(client, iterations, 'baseline: Query gsi1 (share)', {
      TableName: table,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': `$pricing#shareId_${project.shareId}` },
    }),
  ];
}
